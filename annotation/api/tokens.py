"""Obtaining an API token: DRF's view, with wrong credentials answered 401 (not 400)."""

from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.exceptions import AuthenticationFailed, ValidationError


class TokenObtainView(ObtainAuthToken):
    """POST a username and password for the user's token. A well-formed request with wrong
    credentials is refused as unauthenticated (401), as the schema's error answers say;
    a malformed one (a field missing) stays a 400."""

    def post(self, request, *args, **kwargs):
        try:
            return super().post(request, *args, **kwargs)
        except ValidationError as error:
            if error.get_codes() == {"non_field_errors": ["authorization"]}:
                raise AuthenticationFailed(error.detail["non_field_errors"][0]) from error
            raise


token_obtain = TokenObtainView.as_view()
