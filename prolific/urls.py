from django.urls import path

from prolific import views

app_name = "prolific"

urlpatterns = [
    path("start/", views.enter, name="enter"),
    path("continue/", views.continue_session, name="session_continue"),
    path("webhook/", views.webhook, name="webhook"),
]
