"""The package version. It names the ABI the binding is written for (the layout of the structs in
_native.py): the loaded libreshape must match its major and minor numbers before 1.0, its major
number from 1.0 on."""

__version__ = "0.2.0"
