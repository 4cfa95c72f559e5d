"""User-facing errors: bad configuration and bad input, reported without a traceback."""


class CnsimError(Exception):
    """Base class of the errors cnsim reports to users as a one-line message."""


class ConfigError(CnsimError):
    """A scenario or sweep configuration is invalid (names the key, the value, what is allowed)."""


class InputError(CnsimError):
    """An input file or argument other than the configuration is invalid."""
