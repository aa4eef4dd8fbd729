"""The one error every persona reader raises: it says which file, which row or line, and which field, so a bad
persona file is a sentence the user can act on (the CLI's message, the API's 422), never a traceback."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from personas.table_files import TableReadError


class PersonaSourceError(ValueError):
    """A persona source could not be read: says which file, which row or line, and which field."""

    def __init__(
        self, message: str, *, path: str | Path | None = None, location: str | None = None, field: str | None = None
    ) -> None:
        self.path = str(path) if path is not None else None
        self.location = location
        self.field = field
        self.reason = message
        where = ", ".join(part for part in (self.path, location, f"field '{field}'" if field else None) if part)
        super().__init__(f"{where}: {message}" if where else message)

    @classmethod
    def from_validation(
        cls, error: ValidationError, *, path: str | Path | None = None, location: str | None = None
    ) -> PersonaSourceError:
        """A pydantic error as a source error, naming the first offending field as a dotted path."""
        problems = error.errors()
        field = ".".join(str(part) for part in problems[0]["loc"]) if problems and problems[0]["loc"] else None
        detail = "; ".join(
            f"{'.'.join(str(p) for p in problem['loc']) or '(record)'}: {problem['msg']}" for problem in problems
        )
        return cls(detail, path=path, location=location, field=field)

    @classmethod
    def from_table(cls, error: TableReadError) -> PersonaSourceError:
        """A table file's read error (personas.table_files) as a source error, at the same file and line."""
        return cls(error.reason, path=error.path, location=error.location)

    def at(self, *, path: str | Path | None = None, location: str | None = None) -> PersonaSourceError:
        """The same error, placed in a file and row (readers know where, record parsers know what)."""
        return PersonaSourceError(
            self.reason,
            path=path if path is not None else self.path,
            location=location or self.location,
            field=self.field,
        )
