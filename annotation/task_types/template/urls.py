"""The template type's URLs: its sandboxed frame (frames.py) and its API upload."""

from django.urls import path

from annotation.task_types.template.api import TemplateBatchCreate
from annotation.task_types.template.frames import frame_view

urlpatterns = [
    path("tasks/frame/<str:token>/", frame_view, name="template_frame"),
    path("api/template-batches/", TemplateBatchCreate.as_view(), name="api-template-batches"),
]
