"""API permissions: staff only, and each method needs the matching model permission."""

from rest_framework.permissions import DjangoModelPermissions


class StaffModelPermissions(DjangoModelPermissions):
    """Staff only (researchers and reviewers; crowd workers never are): reads need the
    model's `view` permission, writes its add/change/delete one; anonymous requests get 401
    (token or session auth), others 403."""

    perms_map = {
        **DjangoModelPermissions.perms_map,
        "GET": ["%(app_label)s.view_%(model_name)s"],
        "HEAD": ["%(app_label)s.view_%(model_name)s"],
    }

    def has_permission(self, request, view) -> bool:
        user = request.user
        if not (user and user.is_authenticated and user.is_staff):
            return False
        return super().has_permission(request, view)
