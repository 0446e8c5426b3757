"""The base of tools whose input names one file (Read, Edit, Write, NotebookEdit).

What they share, written once: the rule subject is the path the model gave; observers (hooks,
logs) see it absolute; the tool's own permission check confines it to the workspace (and, for
writers, away from ``.git/`` and ``.github/workflows/``).
"""

from __future__ import annotations

from typing import ClassVar, Generic, TypeVar

from pydantic import BaseModel

from bot.interface.context import ToolUseContext
from bot.interface.tool import Tool
from bot.permissions.decision import PermissionResult
from bot.tools.paths import check_path_access, resolve_path

InputT = TypeVar("InputT", bound=BaseModel)
OutputT = TypeVar("OutputT")


class PathTool(Tool[InputT, OutputT], Generic[InputT, OutputT]):
    #: The input field that holds the path.
    path_field: ClassVar[str] = "file_path"
    #: Writes to the path (confined more strictly).
    writes: ClassVar[bool] = False

    def path_of(self, input: InputT) -> str:
        value = getattr(input, self.path_field)
        assert isinstance(value, str)
        return value

    def permission_subject(self, input: InputT) -> str:
        return self.path_of(input)

    def summarize_input(self, input: InputT) -> str:
        return self.path_of(input)

    def observable_input(self, input: InputT, context: ToolUseContext) -> dict[str, object]:
        data = input.model_dump(mode="json", exclude_none=True)
        data[self.path_field] = str(resolve_path(self.path_of(input), context))
        return data

    async def check_permissions(self, input: InputT, context: ToolUseContext) -> PermissionResult:
        return check_path_access(self.path_of(input), context, write=self.writes)
