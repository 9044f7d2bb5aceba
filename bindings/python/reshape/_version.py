"""The package version; its major number must match the loaded libreshape's."""

__version__ = "0.1.0"
