from django.urls import path

from frontend import views

app_name = "frontend"

urlpatterns = [
    path("w/<str:token>/", views.invite_enter, name="invite"),
    path("tasks/", views.worker_home, name="home"),
    path("tasks/<int:batch_id>/next/", views.next_task, name="next"),
    path("tasks/<int:batch_id>/qualify/", views.qualify, name="qualify"),
    path("tasks/a/<int:assignment_id>/", views.task_page, name="task"),
    path("tasks/a/<int:assignment_id>/submit/", views.task_submit, name="submit"),
    path("tasks/a/<int:assignment_id>/return/", views.task_return, name="return"),
    path("tasks/a/<int:assignment_id>/check/", views.task_check, name="check"),
    path("tasks/pledge/", views.pledge_agree, name="pledge"),
    path("tasks/preview/<int:batch_id>/", views.task_preview, name="preview"),
    path("tasks/preview/submit/", views.preview_submit, name="preview_submit"),
]
