"""URL map: admin, the requester API with its schema, health, and the app pages."""

from django.contrib import admin
from django.urls import include, path
from rest_framework.routers import DefaultRouter

from annotation.admin import agreement as admin_agreement
from annotation.admin import dashboard
from annotation.admin import queue as review_queue
from annotation.api.agreement import AgreementViewSet, ChainedBatchViewSet
from annotation.api.curation import ProverbViewSet, VariantGroupViewSet
from annotation.api.import_jobs import ImportJobViewSet
from annotation.api.narratives import NarrativeViewSet
from annotation.api.tokens import token_obtain
from common.api_docs import view_on_first_request
from common.health import healthz
from crowd import task_types
from crowd.api import BatchViewSet

router = DefaultRouter()
router.register("proverbs", ProverbViewSet, basename="proverb")
router.register("variant-groups", VariantGroupViewSet, basename="variant-group")
router.register("import-jobs", ImportJobViewSet, basename="import-job")
router.register("batches", BatchViewSet, basename="batch")
router.register("narratives", NarrativeViewSet, basename="narrative")
router.register("agreement", AgreementViewSet, basename="agreement")
router.register("chained-batches", ChainedBatchViewSet, basename="chained-batch")

admin.site.site_header = "Parable"
admin.site.site_title = "Parable"
admin.site.index_title = "Datasets, crowd batches and baselines"
admin.site.index_template = "admin/parable_index.html"

urlpatterns = [
    path("admin/dataset/", include(dashboard.urls)),
    path("admin/agreement/", include(admin_agreement.urls)),
    path("admin/review/", include(review_queue.urls)),
    path("admin/", admin.site.urls),
    path("api/", include(router.urls)),
    path("api/auth/token/", token_obtain, name="api-token"),
    # The schema and its pages import drf-spectacular's generator on their first request.
    path(
        "api/schema/",
        view_on_first_request("drf_spectacular.views.SpectacularAPIView"),
        name="api-schema",
    ),
    # Swagger UI's start-up script from its own same-origin URL (?script), not inline: the
    # Content-Security-Policy allows scripts from this site only.
    path(
        "api/docs/",
        view_on_first_request(
            "drf_spectacular.views.SpectacularSwaggerSplitView", url_name="api-schema"
        ),
        name="api-docs",
    ),
    path("healthz", healthz, name="healthz"),
    path("prolific/", include("prolific.urls")),
    path("mturk/", include("mturk.urls")),
    # The task types' own views, where a type serves any (TaskType.urls).
    *(path("", include(type_.urls)) for type_ in task_types.in_order() if type_.urls),
    path("", include("frontend.urls")),
]

handler400 = "common.errors.bad_request"
handler403 = "common.errors.permission_denied"
handler404 = "common.errors.page_not_found"
handler500 = "common.errors.server_error"
