"""The requester API (Django REST framework) and its OpenAPI schema (drf-spectacular)."""

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first: anonymous requests then get 401 with a WWW-Authenticate header.
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["annotation.api.permissions.StaffModelPermissions"],
    # JSON bodies only (file uploads name their own parsers), read by the checked parser.
    "DEFAULT_PARSER_CLASSES": ["common.api_parser.CheckedJSONParser"],
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
    "DEFAULT_SCHEMA_CLASS": "common.api_schema.ParableAutoSchema",
    "DEFAULT_PAGINATION_CLASS": "common.pagination.CheckedLimitOffsetPagination",
    "PAGE_SIZE": 100,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Parable API",
    "DESCRIPTION": "Requester API: proverbs and curation, batches, review.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAdminUser"],
    # Request bodies get their own components, with the constraints that writes check
    # (e.g. required text is not empty).
    "COMPONENT_SPLIT_REQUEST": True,
    # Attaches the views' schema annotations, which the web path leaves unread (common.api_docs).
    "DEFAULT_GENERATOR_CLASS": "common.api_schema.ParableSchemaGenerator",
    "ENUM_NAME_OVERRIDES": {
        "ProverbStatusEnum": "annotation.models.Proverb.Status",
        "VariantGroupStatusEnum": "annotation.models.VariantGroup.Status",
        "NarrativeStatusEnum": "annotation.models.Narrative.Status",
        "BatchStatusEnum": "crowd.models.Batch.Status",
        "NarrativeSplitEnum": "annotation.models.Narrative.Split",
    },
}
# The API documentation page (/api/docs/) loads Swagger UI from static files, not a CDN.
SPECTACULAR_SETTINGS |= {
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}
