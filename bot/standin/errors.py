"""Discord-shaped API errors raised by the fake's route handlers."""

from __future__ import annotations

from .models import JSON


class ApiError(Exception):
    """Raised by a route handler to answer with a Discord-shaped JSON error."""

    def __init__(self, status: int, code: int, message: str, errors: JSON | None = None) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.body: JSON = {"message": message, "code": code}
        if errors is not None:
            self.body["errors"] = errors


def invalid_form(field_name: str, message: str, code: str = "BASE_TYPE_INVALID") -> ApiError:
    """400 / 50035 Invalid Form Body with one field error."""
    return ApiError(
        400,
        50035,
        "Invalid Form Body",
        {field_name: {"_errors": [{"code": code, "message": message}]}},
    )
