"""User-facing errors: bad configuration and bad input, reported without a traceback."""


class CnsimError(Exception):
    """Base class of the errors cnsim reports to users as a one-line message."""


class ConfigError(CnsimError):
    """A scenario or sweep configuration is invalid (names the key, the value, what is allowed)."""


class InputError(CnsimError):
    """An input file or argument other than the configuration is invalid."""


class Names:
    """How a message names the arguments it is about, in the caller's terms: option names
    on the command line (:data:`CLI`: ``--out 'x'``, ``--overwrite``), keyword names in
    the Python API (:data:`API`: ``out='x'``, ``overwrite=True``). ``out`` is the name of
    the output argument (``cnsim.run``'s ``out``, ``Result.write``'s ``out_dir``)."""

    def __init__(self, cli: bool, out: str) -> None:
        self.cli, self.out = cli, out

    def arg(self, name: str) -> str:
        """The argument ``name`` (a keyword name) as the caller spells it."""
        if name == "out":
            return self.out
        return "--" + name.replace("_", "-") if self.cli else name

    def flag(self, name: str) -> str:
        """How the caller turns the flag ``name`` on: ``--overwrite``, ``overwrite=True``."""
        return self.arg(name) if self.cli else f"{self.arg(name)}=True"

    def given(self, name: str, value: object, most: int | None = None) -> str:
        """The argument ``name`` with the ``value`` given: ``--out 'x'``, ``out='x'``
        (``most``: the value's text cut to that many characters, then ``...``)."""
        text = repr(value)
        if most is not None and len(text) > most:
            text = text[:most] + "..."
        return f"{self.arg(name)} {text}" if self.cli else f"{self.arg(name)}={text}"

    def writing(self, out: str) -> "Names":
        """The same style, the output argument named ``out``."""
        return Names(self.cli, out)


CLI = Names(cli=True, out="--out")
API = Names(cli=False, out="out")
