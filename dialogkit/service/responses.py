"""The JSON response every route answers with."""

from __future__ import annotations

import json
from typing import Any

from starlette.responses import JSONResponse

__all__ = ["Json"]


class Json(JSONResponse):
    """JSON in UTF-8 (Chinese stays readable); a value JSON cannot hold (a date an action
    returned, a set) is written as its text instead of failing the response."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":"),
                          default=str).encode("utf-8")
