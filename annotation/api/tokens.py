"""Obtaining an API token: DRF's view, with wrong credentials answered 401 (not 400), a
token fetched counted as a login, and a user name locked out after repeated failures
(django-axes) answered 429."""

from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.exceptions import AuthenticationFailed, Throttled, ValidationError
from rest_framework.response import Response


@extend_schema_serializer(component_name="AuthToken")
class CredentialsSerializer(AuthTokenSerializer):
    # DRF's user name and password, the user name taken as sent, as the password is: DRF
    # trims it, and a name of white space alone (a tab, U+0085) then is "blank", a 400 no
    # schema can state (what Python trims is no JSON Schema pattern). As sent, it is a
    # user name no one has: wrong credentials, 401. (A comment, not a docstring: the
    # schema would show it.)
    username = serializers.CharField(write_only=True, trim_whitespace=False)


class TokenObtainView(ObtainAuthToken):
    """POST a username and password for the user's token. A well-formed request with wrong
    credentials is refused as unauthenticated (401), as the schema's error answers say;
    a malformed one (a field missing) stays a 400. After PARABLE_LOGIN_FAILURE_LIMIT
    failures for the user name from this address, every try (the right password too) is
    refused with 429 and Retry-After until the cool-off has passed since the last one.
    A token handed out is a login (user_logged_in): it clears the failures counted so far,
    as a login on the admin's form does, and sets the user's last login."""

    serializer_class = CredentialsSerializer
    schema_extra_errors = ("429",)

    def post(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        try:
            serializer.is_valid(raise_exception=True)
        except ValidationError as error:
            if getattr(request, "axes_locked_out", False):
                raise Throttled(
                    wait=settings.AXES_COOLOFF_TIME.total_seconds(),
                    detail="Too many failed logins for this user name; try again later.",
                ) from error
            if error.get_codes() == {"non_field_errors": ["authorization"]}:
                raise AuthenticationFailed(error.detail["non_field_errors"][0]) from error
            raise
        user = serializer.validated_data["user"]
        token, _ = Token.objects.get_or_create(user=user)
        user_logged_in.send(sender=type(user), request=request, user=user)
        return Response({"token": token.key})


token_obtain = TokenObtainView.as_view()
