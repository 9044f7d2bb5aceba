"""The ops of a rules document: what each does, its params, and an example (``help(reshape.ops)``).

A rules document is a list of rules, each a dict ``{"op": NAME, ...params}``, run in order, each
on the result of the one before (or a dict ``{"rules": [...]}``). Every param is optional unless
marked required; the default comes first. Rules are checked when `reshape.Rules` compiles them:
an unknown op or param, a param of the wrong type or a path that cannot be compiled raises
`reshape.InvalidRules`, naming the rule and suggesting what a typo meant. This is the reference
of the rules document (docs/rules.md in the repository), for the ops; the examples run as they
are written here (the test suite runs them).

>>> import reshape

Paths
-----

Paths are RFC 9535 JSONPath queries: ``$`` (the document), ``.name`` or ``['name']`` (a member),
``[n]`` and ``[-n]`` (an element, from the end when negative), ``.*`` and ``[*]`` (every member or
element), slices ``[start:end:step]``, unions ``['a','b']``, filters ``[?@.price > 10 && @.tags]``
(comparisons, ``&&``, ``||``, ``!``, and the functions ``length``, ``count``, ``value``, ``match``
and ``search``), and ``..`` before any of them for every descendant. A rule selects its locations
before it edits any, then edits each once, deepest first; a path that selects nothing does nothing
(only ``unwrap`` treats a missing singular path as an error). Errors name the failing value by its
normalized path: ``$['users']['-Nx1'][0]``.

>>> reshape.apply([{"op": "remove", "path": "$[?@ == null]"}], '[{"id": 1}, null, {"id": 2}]')
b'[{"id":1},{"id":2}]'

unwrap
------

The document becomes the value at ``path``.

- ``path`` (required): what the document becomes. A path with a wildcard or ``..`` gives the
  array of what it selects (empty when nothing matches).
- ``optional`` (false): a missing singular path gives null instead of a RuleFailed error.

>>> reshape.apply([{"op": "unwrap", "path": "$.data"}], '{"data": [{"id": 1, "name": "Mu mu"}]}')
b'[{"id":1,"name":"Mu mu"}]'
>>> reshape.apply([{"op": "unwrap", "path": "$.data", "optional": True}], '{"error": "none"}')
b'null'

wrap
----

The document becomes the one member of a new object.

- ``key`` (required): the member name to wrap the document in.

>>> reshape.apply([{"op": "wrap", "key": "items"}], "[1, 2]")
b'{"items":[1,2]}'

keyedToArray
------------

Each selected object ``{k: {...}}`` becomes ``[{idKey: k, ...}]``: the id first, then the record's
members, records in the collection's order (Firebase push ids are chronological). null (an
empty Firebase collection) becomes ``[]``; an array (what Firebase sends for small integer keys)
becomes records whose id is the index as a string, skipping null holes.

- ``path`` ("$"): the collections to convert.
- ``idKey`` ("id"): the member that receives each key.
- ``wrapIn`` (none): put the array under this member name.
- ``onConflict`` ("error", "overwrite", "keep"): a record that already has ``idKey``: an error,
  the collection's key wins, or the record's own field wins.
- ``nonObject`` ("error", "skip", "wrap"): a member that is not an object: an error, dropped,
  or ``{idKey: k, valueKey: v}``.
- ``valueKey`` ("value"): the member that receives a non-object value with ``nonObject: "wrap"``.

>>> reshape.apply([{"op": "keyedToArray", "idKey": "objectId", "wrapIn": "objects"}],
...               '{"u2": {"name": "Admin"}, "u3": {"name": "Tester"}}')
b'{"objects":[{"objectId":"u2","name":"Admin"},{"objectId":"u3","name":"Tester"}]}'
>>> reshape.apply([{"op": "keyedToArray", "nonObject": "wrap"}], '{"a": 1, "b": {"n": 2}}')
b'[{"id":"a","value":1},{"id":"b","n":2}]'

arrayToKeyed
------------

The inverse of keyedToArray, for writing back: ``[{idKey: k, ...}]`` becomes ``{k: {...}}``. The
id must be a string or an integer (``1`` and ``"1"`` are the same key); a missing, duplicate or
other id, an element that is not an object and a selected value that is not an array are errors.

- ``path`` ("$"): the arrays to convert.
- ``idKey`` ("id"): the member holding each record's key.
- ``keepId`` (false): keep ``idKey`` inside the records.

>>> reshape.apply([{"op": "arrayToKeyed", "path": "$.objects", "idKey": "objectId"}],
...               '{"objects": [{"objectId": "x", "n": 1}]}')
b'{"objects":{"x":{"n":1}}}'

emptyObjectToNull
-----------------

Each selected ``{}`` becomes null, for APIs that send ``{}`` for a missing optional object. The
selection is made before the rule: ``{"a": {"b": {}}}`` becomes ``{"a":{"b":null}}``.

- ``path`` ("$..*"): the values to look at (every value below the document).

>>> reshape.apply([{"op": "emptyObjectToNull"}], '{"title": "Blah", "frontCover": {}}')
b'{"title":"Blah","frontCover":null}'

blankStringToNull
-----------------

Each selected ``""`` becomes null, for APIs that send ``""`` for a missing string or enum.

- ``path`` ("$..*"): the values to look at.
- ``trim`` (false): also strings of only white space (Unicode White_Space).

>>> reshape.apply([{"op": "blankStringToNull"}], '{"genre": "thriller", "subgenre": ""}')
b'{"genre":"thriller","subgenre":null}'
>>> reshape.apply([{"op": "blankStringToNull", "trim": True}], '["  ", " x "]')
b'[null," x "]'

convertKeys
-----------

Renames member names as Foundation's snake_case and camelCase key strategies do (``book_list`` to
``bookList``; ``myURLProperty`` to ``my_url_property``); ``kebab-case`` is snake_case written with
``-`` (``firstName`` to ``first-name``). Every conversion reads ``-`` as ``_``, so kebab-case names
convert too (``first-name`` to ``firstName``). Members keep their positions; two members that would
get the same name are an error.

- ``to`` ("camelCase", "snake_case", "kebab-case"): the naming convention.
- ``path`` ("$"): the objects whose members to rename.
- ``deep`` (true): also rename inside their values, at any depth.
- ``exclude`` ([]): a list of paths: what they select, and everything below it, keeps its names
  (user data such as Stripe's ``metadata``).

>>> reshape.apply([{"op": "convertKeys", "to": "camelCase"}], '{"book_list": [{"cover_url": "x"}]}')
b'{"bookList":[{"coverUrl":"x"}]}'
>>> reshape.apply([{"op": "convertKeys", "to": "snake_case"}], '{"myURLProperty": 1}')
b'{"my_url_property":1}'
>>> reshape.apply([{"op": "convertKeys", "exclude": ["$..metadata"]}], '{"customer_id": 1, "metadata": {"crm_id": 2}}')
b'{"customerId":1,"metadata":{"crm_id":2}}'

renameKeys
----------

Renames the listed members, keeping their positions; names not listed stay. Renaming is
simultaneous, so ``{"a": "b", "b": "a"}`` swaps. A collision is an error.

- ``map`` (required): an object, old name to new name.
- ``path`` ("$"): the objects whose members to rename.
- ``deep`` (false): also rename inside their values, at any depth.

>>> reshape.apply([{"op": "renameKeys", "map": {"book_list": "books"}}], '{"book_list": [], "total": 0}')
b'{"books":[],"total":0}'

remove
------

Removes the selected members or elements; a path that selects nothing removes nothing. With
``matching``, ``path`` selects objects (``$`` too), and each loses the members whose whole names
match that I-Regexp (RFC 9485: ``.``, classes, quantifiers, ``|``, groups and ``\\p{..}``
categories; no anchors).

- ``path`` (required): the members or elements to remove; ``$`` is refused; with ``matching``, the
  objects to remove members from.
- ``matching`` (none): an I-Regexp that a member's whole name must match.

>>> reshape.apply([{"op": "remove", "path": "$.items[*].debug"}], '{"items": [{"id": 1, "debug": "x"}, {"id": 2}]}')
b'{"items":[{"id":1},{"id":2}]}'
>>> reshape.apply([{"op": "remove", "path": "$[*]", "matching": ".*_url"}], '[{"id": 1, "html_url": "h", "url": "u"}]')
b'[{"id":1,"url":"u"}]'

default
-------

Sets ``key`` to ``value`` on each selected object where the member is missing (added at the end)
or null (replaced in place). A selected value that is not an object is an error.

- ``path`` ("$"): the objects to complete.
- ``key`` (required): the member name.
- ``value`` (required): any JSON value.

>>> reshape.apply([{"op": "default", "path": "$[*]", "key": "role", "value": "user"}],
...               '[{"name": "a"}, {"role": null, "name": "b"}]')
b'[{"name":"a","role":"user"},{"role":"user","name":"b"}]'

coerce
------

Converts the selected values to a type. ``number``: a string holding exactly a JSON number becomes
that number (``"12.50"`` to ``12.5``). ``integer``: a whole real or string becomes an integer
(``4.0``, ``"1e3"``); a fraction or a value beyond 64 bits fails. ``string``: numbers become their
text, booleans ``"true"`` and ``"false"``. ``boolean``: exactly ``"true"`` and ``"false"``. null
stays null for every target.

- ``path`` (required): the values to convert.
- ``to`` ("number", "integer", "string", "boolean"): the type.
- ``onFail`` ("error", "null", "keep"): a value that cannot be converted: an error, null, or left
  as it is.

>>> reshape.apply([{"op": "coerce", "path": "$.items[*].price", "to": "number"}], '{"items": [{"price": "12.50"}]}')
b'{"items":[{"price":12.5}]}'
>>> reshape.apply([{"op": "coerce", "path": "$[*]", "to": "integer", "onFail": "null"}], '["7", "1.5", null]')
b'[7,null,null]'

emptyArrayToNull
----------------

Each selected ``[]`` becomes null, for APIs (PHP's among them) that send ``[]`` for an empty
object or a missing list. The selection is made before the rule: ``[[]]`` becomes ``[null]``.

- ``path`` ("$..*"): the values to look at (every value below the document).

>>> reshape.apply([{"op": "emptyArrayToNull"}], '{"title": "Post", "acf": [], "tags": ["a"]}')
b'{"title":"Post","acf":null,"tags":["a"]}'

keep
----

Each selected object keeps only the members named in ``members``, in their order in the object (a
name not in the object is ignored). A selected null stays null; any other value that is not an
object is an error.

- ``path`` ("$"): the objects to trim.
- ``members`` (required): a list of names: the members to keep.

>>> reshape.apply([{"op": "keep", "path": "$[*]", "members": ["id", "login"]}],
...               '[{"login": "a", "id": 1, "node_id": "MDQ6", "avatar_url": "u"}]')
b'[{"login":"a","id":1}]'

hoist
-----

Each selected object becomes the value of its member ``member`` (WordPress's ``"title":
{"rendered": "..."}``). A selected null stays null; any other value that is not an object is an
error. Objects inside the member that the path also selects are replaced first.

- ``path`` (required): the objects to replace.
- ``member`` (required): the member whose value replaces each object.
- ``onMissing`` ("error", "null", "keep"): an object without the member: an error, null, or left
  as it is.

>>> reshape.apply([{"op": "hoist", "path": "$[*].title", "member": "rendered"}],
...               '[{"id": 1, "title": {"rendered": "Hello", "raw": "Hello"}}]')
b'[{"id":1,"title":"Hello"}]'

pluck
-----

Each selected array of objects becomes the array of their members ``member``, in order. A selected
null stays null; a selected value that is not an array, and an element that is neither an object
nor null, are errors.

- ``path`` (required): the arrays to replace.
- ``member`` (required): the member taken from each element.
- ``onMissing`` ("error", "skip", "null"): an element without the member, or null: an error, left
  out, or null.

>>> reshape.apply([{"op": "pluck", "path": "$[*].labels", "member": "name"}],
...               '[{"number": 1, "labels": [{"id": 10, "name": "bug"}, {"id": 11, "name": "ui"}]}]')
b'[{"number":1,"labels":["bug","ui"]}]'

flatten
-------

In each selected object, the member ``member`` (an object) is replaced where it stands by its own
members, each name prefixed with ``prefix`` (JSON:API's ``data[*].attributes``). A null member is
removed; a missing one changes nothing; a moved name the object already has is an error at the
moved member. A selected null stays null; other values that are not objects are errors.

- ``path`` (required): the objects to flatten.
- ``member`` (required): the member whose members move up.
- ``prefix`` (""): put before each moved member's name.

>>> reshape.apply([{"op": "flatten", "path": "$.data[*]", "member": "attributes"}],
...               '{"data": [{"id": "9", "attributes": {"name": "Dan"}, "type": "people"}]}')
b'{"data":[{"id":"9","name":"Dan","type":"people"}]}'

mapValues
---------

Each selected value equal to a case's ``from`` becomes that case's ``to`` (status codes to names,
``0`` or ``false`` meaning null). Equality is JSON's: numbers by exact value (``1``, ``1.0`` and
``10e-1`` are one number), strings exactly, arrays in order, objects whatever their member order.
The first case that matches wins.

- ``path`` (required): the values to map.
- ``cases`` (required): a list of pairs ``[from, to]`` of any JSON values.
- ``onOther`` ("keep", "null", "error"): a value no case matches: left as it is, null, or an error.

>>> reshape.apply([{"op": "mapValues", "path": "$[*].status", "cases": [[0, "draft"], [1, "published"]]}],
...               '[{"id": 1, "status": 1}, {"id": 2, "status": 0}]')
b'[{"id":1,"status":"published"},{"id":2,"status":"draft"}]'
"""

from typing import List

__all__: List[str] = []
