"""Reshape JSON from quirky APIs with a rules document.

The same rules document, run by the same engine (libreshape), gives the same bytes from Python,
Swift, C and the ``reshape`` CLI. ``help(reshape.ops)`` describes every op of a rules document,
with examples; ``help(reshape.Rules)`` the API. ``python -m reshape`` is the ``reshape`` command line.

>>> import reshape
>>> reshape.apply([{"op": "unwrap", "path": "$.data"}], '{"data": [1, 2]}')
b'[1,2]'
"""

from ._errors import (
    Cancelled,
    InternalError,
    InvalidArgument,
    InvalidJSON,
    InvalidRules,
    IOFailed,
    LimitExceeded,
    OutOfMemory,
    ReshapeError,
    RuleFailed,
)
from ._buffers import Data
from ._explain import Explanation
from ._infer import Inference, Reason, infer
from ._limits import Limits
from ._native import LibraryNotFound, library_version
from ._rules import FileArgument, ProgressCallback, Rules, RulesSpec, SkipCallback, apply
from ._source import Rename, Source
from ._version import __version__
from . import ops

# The public classes and functions are reshape's: help(), reprs and tracebacks name them
# reshape.Rules, reshape.RuleFailed... (pickles find them there too), wherever they are defined.
for _public in (Cancelled, Explanation, Inference, InternalError, InvalidArgument, InvalidJSON, InvalidRules, IOFailed, LibraryNotFound,
                LimitExceeded, Reason, infer, Limits, OutOfMemory, Rename, ReshapeError, RuleFailed, Rules, Source, apply,
                library_version):
    _public.__module__ = __name__
del _public

__all__ = [
    "Cancelled",
    "Data",
    "Explanation",
    "FileArgument",
    "Inference",
    "InternalError",
    "InvalidArgument",
    "InvalidJSON",
    "InvalidRules",
    "IOFailed",
    "LibraryNotFound",
    "LimitExceeded",
    "Limits",
    "OutOfMemory",
    "ProgressCallback",
    "Reason",
    "Rename",
    "ReshapeError",
    "RuleFailed",
    "Rules",
    "RulesSpec",
    "SkipCallback",
    "Source",
    "infer",
    "__version__",
    "apply",
    "library_version",
    "ops",
]
