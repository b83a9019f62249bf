from django.urls import path

from mturk import views

app_name = "mturk"

urlpatterns = [
    path("items/<int:item_id>/", views.task, name="task"),
    path("answers/<str:token>/submit/", views.submit, name="submit"),
]
