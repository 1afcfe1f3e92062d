"""Java Object Serialization streams (DataWorks `ddl.ddlMeta`) read in pure Python.

DataWorks puts the parsed form of every schema change in `ddl.ddlMeta`: base64 of a
Java-serialized `com.alibaba.di.plugin.center.meta.DDLMeta`, whose `statement` is a FastSQL AST.
Spark has no reader for that format, and deserializing it in a JVM would need the FastSQL classes
and would run code chosen by whoever wrote the message. So this module reads the protocol itself
(`java.io.ObjectStreamConstants`, stream version 5) without loading or running any class, and
bounds its work (input size, nesting depth, number of objects, size of the JSON once
back-references are expanded): a corrupt or hostile message costs bounded time and memory and ends
as a reason in `int_cdc__rejected_messages`, never as an exception that fails the Spark task.

JSON conventions of `java_object_json`:
- Object: `{"@class": "<class>", "<field>": value, ...}` with the fields of every serializable
  class of its hierarchy, superclass first. A superclass field hidden by a subclass field of the
  same name is keyed `"<declaring class>.<field>"`.
- Primitives: numbers (long as a JSON integer, float with its shortest decimal form; NaN and the
  infinities, which JSON lacks, as the strings "NaN", "Infinity", "-Infinity"), booleans, char as
  a one-character string. String as string, null as null.
- Arrays: JSON arrays; `byte[]` as `{"@class": "[B", "base64": "<standard base64>"}`.
- Enum constant: `{"@enum": "<enum class>", "name": "<CONSTANT>"}`. A `Class` object:
  `{"@class": "java.lang.Class", "name": "<class>"}`; a class description written as an object:
  the same with `"java.io.ObjectStreamClass"`.
- Back-reference: the referenced value again, so a shared object appears in full wherever it is
  used. A reference to an object still being read (a cycle, such as an AST node's `parent`) is
  cut as `{"@ref": "<class>"}`.
- Boxed primitives (`java.lang.Integer`, `Long`, `Boolean`, ...): the bare value.
- Collections whose data is written by their own `writeObject`: ArrayList, LinkedList,
  ArrayDeque, Vector, Stack, HashSet, LinkedHashSet, TreeSet become JSON arrays (in stream order;
  a TreeSet's comparator is dropped); HashMap, LinkedHashMap, TreeMap, Hashtable become a JSON
  object when every key is a string not starting with "@" (so a map never looks like an object or
  a marker), else an array of `{"key": k, "value": v}`.
- Other custom data (annotations written by any other class's `writeObject`, and the data of
  Externalizable objects written in block-data mode) goes under `"@data"`: a list of the objects
  written, decoded, and of primitive data as `{"@blockdata": "<base64>"}` (adjacent block records
  merged). `"@data"` is left out when there is none.
- Top level: the stream's one object. A stream with several top-level contents gives
  `{"@contents": [...]}`; top-level block data appears there as `{"@blockdata": ...}`.
- Lone UTF-16 surrogates (legal in Java strings, not in UTF-8) are written as `\\uXXXX` escapes, so
  the JSON text always encodes to UTF-8.

Base64 input is the standard alphabet; whitespace anywhere and missing `=` padding are tolerated.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

# Limits. A ddlMeta is a few kilobytes; these leave room for any real DDL and stop crafted input.
MAX_INPUT_BYTES = 16 * 1024 * 1024
# Base64 text (with whitespace) longer than this cannot decode to an acceptable stream.
MAX_INPUT_CHARS = 2 * MAX_INPUT_BYTES
MAX_DEPTH = 200
MAX_HANDLES = 250_000
# Approximate characters of JSON once back-references are expanded: without it, a few objects
# that each refer twice to the previous one would expand to 2^n.
MAX_JSON_CHARS = 64 * 1024 * 1024

STREAM_MAGIC = 0xACED
STREAM_VERSION = 5
BASE_WIRE_HANDLE = 0x7E0000

TC_NULL = 0x70
TC_REFERENCE = 0x71
TC_CLASSDESC = 0x72
TC_OBJECT = 0x73
TC_STRING = 0x74
TC_ARRAY = 0x75
TC_CLASS = 0x76
TC_BLOCKDATA = 0x77
TC_ENDBLOCKDATA = 0x78
TC_RESET = 0x79
TC_BLOCKDATALONG = 0x7A
TC_EXCEPTION = 0x7B
TC_LONGSTRING = 0x7C
TC_PROXYCLASSDESC = 0x7D
TC_ENUM = 0x7E

SC_WRITE_METHOD = 0x01
SC_SERIALIZABLE = 0x02
SC_EXTERNALIZABLE = 0x04
SC_BLOCK_DATA = 0x08
# SC_ENUM (0x10) needs no handling: enum constants come as TC_ENUM, which says as much.

# Primitive field type codes and their sizes in bytes.
PRIMITIVE_SIZES = {"B": 1, "C": 2, "D": 8, "F": 4, "I": 4, "J": 8, "S": 2, "Z": 1}
OBJECT_TYPE_CODES = "L["
ARRAY_STRUCT_CODES = {"B": "b", "C": "H", "D": "d", "F": "f", "I": "i", "J": "q", "S": "h"}

BOXED_CLASSES = frozenset(
    "java.lang." + name
    for name in ("Boolean", "Byte", "Character", "Double", "Float", "Integer", "Long", "Short")
)


@dataclass(frozen=True)
class CollectionLayout:
    """Where a java.util collection keeps its elements in the stream, and what JSON it becomes."""

    data_class: str  # the class of the hierarchy whose writeObject wrote the elements
    kind: str  # "list", "map" or "vector" (elements in the Vector fields, not in an annotation)
    skip: int = 0  # leading annotation objects that are not elements (TreeSet's comparator)


COLLECTIONS = {
    "java.util.ArrayList": CollectionLayout("java.util.ArrayList", "list"),
    "java.util.LinkedList": CollectionLayout("java.util.LinkedList", "list"),
    "java.util.ArrayDeque": CollectionLayout("java.util.ArrayDeque", "list"),
    "java.util.HashSet": CollectionLayout("java.util.HashSet", "list"),
    "java.util.LinkedHashSet": CollectionLayout("java.util.HashSet", "list"),
    "java.util.TreeSet": CollectionLayout("java.util.TreeSet", "list", skip=1),
    "java.util.HashMap": CollectionLayout("java.util.HashMap", "map"),
    "java.util.LinkedHashMap": CollectionLayout("java.util.HashMap", "map"),
    "java.util.TreeMap": CollectionLayout("java.util.TreeMap", "map"),
    "java.util.Hashtable": CollectionLayout("java.util.Hashtable", "map"),
    "java.util.Vector": CollectionLayout("java.util.Vector", "vector"),
    "java.util.Stack": CollectionLayout("java.util.Vector", "vector"),
}

LONE_SURROGATE = re.compile("[\ud800-\udfff]")

T = TypeVar("T")


class StreamError(Exception):
    """Why a stream cannot be decoded; its text is the reason handed back to the caller."""


@dataclass(eq=False)
class ClassDesc:
    """A class description from the stream (never a loaded class: only its name and layout)."""

    name: str
    flags: int
    fields: list[tuple[str, str]]  # (type code, field name), in stream order
    # Superclass first, ending with this class; empty until the description is fully read, so
    # a description that names itself (directly or not) as its superclass is detected.
    hierarchy: tuple[ClassDesc, ...] = field(default=())


@dataclass(frozen=True)
class Pending:
    """Handle-table entry of an object or array still being read: references to it are cycles."""

    class_name: str


@dataclass
class Slot:
    """The data one class of an object's hierarchy wrote: its field values and annotation."""

    desc: ClassDesc
    values: list[tuple[str, Any]]
    annotation: list[Any]  # decoded objects, and bytearray for (merged) block data


class Reader:
    """Reads one stream; every method raises StreamError on bad input."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0
        self.depth = 0
        self.handles: list[Any] = []

    # ---------- raw reads

    def take(self, count: int) -> bytes:
        """The next `count` bytes; the length is checked before anything is allocated."""
        if count > len(self.data) - self.pos:
            raise StreamError(f"truncated stream: needed {count} bytes at offset {self.pos}")
        chunk = self.data[self.pos : self.pos + count]
        self.pos += count
        return chunk

    def unpack(self, fmt: str) -> Any:
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def peek(self) -> int:
        if self.pos >= len(self.data):
            raise StreamError(f"truncated stream: needed 1 bytes at offset {self.pos}")
        return self.data[self.pos]

    def utf(self, length: int) -> str:
        start = self.pos
        return decode_modified_utf8(self.take(length), start)

    def new_handle(self, entry: Any) -> int:
        if len(self.handles) >= MAX_HANDLES:
            raise StreamError(f"more than {MAX_HANDLES} objects in the stream")
        self.handles.append(entry)
        return len(self.handles) - 1

    def handle_entry(self) -> Any:
        start = self.pos
        handle = self.unpack(">i")
        index = handle - BASE_WIRE_HANDLE
        if not 0 <= index < len(self.handles):
            raise StreamError(f"reference to unknown handle {handle:#x} at offset {start}")
        return self.handles[index]

    # ---------- stream structure

    def read_stream(self) -> Any:
        """The top-level contents: one value, or `{"@contents": [...]}` when there are several."""
        magic, version = struct.unpack(">HH", self.take(4))
        if magic != STREAM_MAGIC:
            raise StreamError(
                f"not a Java serialization stream: magic {magic:#06x}, expected {STREAM_MAGIC:#06x}"
            )
        if version != STREAM_VERSION:
            raise StreamError(f"unsupported stream version {version}, expected {STREAM_VERSION}")
        contents: list[Any] = []
        while self.pos < len(self.data):
            code = self.peek()
            if code == TC_RESET:
                self.pos += 1
                self.handles.clear()
            elif code in (TC_BLOCKDATA, TC_BLOCKDATALONG):
                contents.append(block_data_json(self.block_data()))
            else:
                contents.append(self.read_object())
        if not contents:
            raise StreamError("the stream holds no object")
        return contents[0] if len(contents) == 1 else {"@contents": contents}

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise StreamError(f"nesting deeper than {MAX_DEPTH} levels at offset {self.pos}")

    def read_object(self) -> Any:
        """One value where the grammar expects an object (a field, element or annotation item)."""
        self.enter()
        try:
            start = self.pos
            code = self.take(1)[0]
            if code == TC_NULL:
                return None
            if code == TC_REFERENCE:
                return reference_value(self.handle_entry())
            if code == TC_STRING:
                return self.new_string(self.unpack(">H"))
            if code == TC_LONGSTRING:
                return self.new_string(self.unpack(">q"))
            if code == TC_OBJECT:
                return self.new_object()
            if code == TC_ARRAY:
                return self.new_array()
            if code == TC_ENUM:
                return self.new_enum()
            if code == TC_CLASS:
                desc = self.required_class_desc("class")
                value = {"@class": "java.lang.Class", "name": desc.name}
                self.new_handle(value)
                return value
            if code in (TC_CLASSDESC, TC_PROXYCLASSDESC):
                return reference_value(self.new_class_desc(code))
            if code == TC_EXCEPTION:
                raise self.stream_exception()
            if code == TC_RESET:
                raise StreamError(f"reset inside an object at offset {start}")
            if code in (TC_BLOCKDATA, TC_BLOCKDATALONG, TC_ENDBLOCKDATA):
                raise StreamError(f"block data where an object was expected at offset {start}")
            raise StreamError(f"unknown type code {code:#04x} at offset {start}")
        finally:
            self.depth -= 1

    def new_string(self, length: int) -> str:
        if length < 0:
            raise StreamError(f"negative string length {length} at offset {self.pos}")
        text = self.utf(length)
        self.new_handle(text)
        return text

    def class_desc(self) -> ClassDesc | None:
        """A class description: new, a reference to one, or null."""
        self.enter()
        try:
            start = self.pos
            code = self.take(1)[0]
            if code == TC_NULL:
                return None
            if code == TC_REFERENCE:
                entry = self.handle_entry()
                if not isinstance(entry, ClassDesc):
                    raise StreamError(f"reference at offset {start} is not to a class description")
                return entry
            if code in (TC_CLASSDESC, TC_PROXYCLASSDESC):
                return self.new_class_desc(code)
            raise StreamError(
                f"expected a class description at offset {start}, found type code {code:#04x}"
            )
        finally:
            self.depth -= 1

    def required_class_desc(self, what: str) -> ClassDesc:
        start = self.pos
        desc = self.class_desc()
        if desc is None:
            raise StreamError(f"{what} without a class description at offset {start}")
        return desc

    def new_class_desc(self, code: int) -> ClassDesc:
        if code == TC_CLASSDESC:
            name = self.utf(self.unpack(">H"))
            self.take(8)  # serialVersionUID: only a JVM loading the class would check it
            desc = ClassDesc(name, 0, [])
            self.new_handle(desc)
            desc.flags = self.take(1)[0]
            desc.fields = self.field_descs()
        else:
            count_at = self.pos
            count = self.unpack(">i")
            if not 0 <= count <= 65535:
                raise StreamError(f"bad proxy interface count {count} at offset {count_at}")
            interfaces = [self.utf(self.unpack(">H")) for _ in range(count)]
            # The stream does not name a proxy class, only its interfaces.
            desc = ClassDesc("$Proxy(" + ",".join(interfaces) + ")", SC_SERIALIZABLE, [])
            self.new_handle(desc)
        self.read_annotation()  # class annotations (resolveClass hints): nothing to keep
        start = self.pos
        parent = self.class_desc()
        if parent is not None and not parent.hierarchy:
            raise StreamError(
                f"class {desc.name} has a superclass description still being read at offset {start}"
            )
        desc.hierarchy = (parent.hierarchy if parent else ()) + (desc,)
        if len(desc.hierarchy) > MAX_DEPTH:
            raise StreamError(f"class hierarchy of {desc.name} deeper than {MAX_DEPTH} levels")
        return desc

    def field_descs(self) -> list[tuple[str, str]]:
        start = self.pos
        count = self.unpack(">h")
        if count < 0:
            raise StreamError(f"negative field count {count} at offset {start}")
        fields = []
        for _ in range(count):
            code_at = self.pos
            code = chr(self.take(1)[0])
            name = self.utf(self.unpack(">H"))
            if code in OBJECT_TYPE_CODES:
                type_at = self.pos
                if not isinstance(self.read_object(), str):
                    raise StreamError(f"field type at offset {type_at} is not a string")
            elif code not in PRIMITIVE_SIZES:
                raise StreamError(f"unknown field type code {code!r} at offset {code_at}")
            fields.append((code, name))
        return fields

    def block_data(self) -> bytes:
        start = self.pos
        code = self.take(1)[0]
        length = self.take(1)[0] if code == TC_BLOCKDATA else self.unpack(">i")
        if length < 0:
            raise StreamError(f"negative block data length {length} at offset {start}")
        return self.take(length)

    def read_annotation(self) -> list[Any]:
        """Contents up to TC_ENDBLOCKDATA: objects decoded, adjacent block data merged."""
        items: list[Any] = []
        while True:
            code = self.peek()
            if code == TC_ENDBLOCKDATA:
                self.pos += 1
                return items
            if code in (TC_BLOCKDATA, TC_BLOCKDATALONG):
                chunk = self.block_data()
                if items and isinstance(items[-1], bytearray):
                    items[-1] += chunk
                else:
                    items.append(bytearray(chunk))
            else:
                items.append(self.read_object())

    def new_object(self) -> Any:
        desc = self.required_class_desc("object")
        if not desc.hierarchy:
            raise StreamError(f"object of class {desc.name} whose description is still being read")
        handle = self.new_handle(Pending(desc.name))
        if desc.flags & SC_EXTERNALIZABLE:
            if not desc.flags & SC_BLOCK_DATA:
                raise StreamError(
                    f"externalizable {desc.name} written without block data (protocol 1): "
                    "only the class itself can read it"
                )
            value = generic_object(desc.name, [], self.read_annotation())
        else:
            slots = []
            for cls in desc.hierarchy:
                values: list[tuple[str, Any]] = []
                annotation: list[Any] = []
                if cls.flags & SC_SERIALIZABLE:
                    # Plain loops, not comprehensions or helpers: fewer Python frames per level
                    # of nesting keeps MAX_DEPTH well inside the default recursion limit.
                    for code, name in cls.fields:
                        if code in OBJECT_TYPE_CODES:
                            values.append((name, self.read_object()))
                        else:
                            raw = self.take(PRIMITIVE_SIZES[code])
                            values.append((name, primitive_values(code, raw, 1)[0]))
                    if cls.flags & SC_WRITE_METHOD:
                        annotation = self.read_annotation()
                slots.append(Slot(cls, values, annotation))
            value = object_json(desc.name, slots)
        self.handles[handle] = value
        return value

    def new_array(self) -> Any:
        desc = self.required_class_desc("array")
        handle = self.new_handle(Pending(desc.name))
        start = self.pos
        length = self.unpack(">i")
        if length < 0:
            raise StreamError(f"negative array length {length} at offset {start}")
        code = desc.name[1:2] if desc.name.startswith("[") else ""
        if code == "B":
            value: Any = {"@class": "[B", "base64": base64.b64encode(self.take(length)).decode()}
        elif code in PRIMITIVE_SIZES:
            value = primitive_values(code, self.take(length * PRIMITIVE_SIZES[code]), length)
        elif code and code in OBJECT_TYPE_CODES:
            if length > len(self.data) - self.pos:  # every element takes at least one byte
                raise StreamError(f"truncated stream: needed {length} bytes at offset {self.pos}")
            value = []
            for _ in range(length):
                value.append(self.read_object())
        else:
            raise StreamError(f"array of class {desc.name!r} is not an array type")
        self.handles[handle] = value
        return value

    def new_enum(self) -> dict[str, Any]:
        desc = self.required_class_desc("enum constant")
        handle = self.new_handle(Pending(desc.name))
        start = self.pos
        constant = self.read_object()
        if not isinstance(constant, str):
            raise StreamError(f"enum constant name at offset {start} is not a string")
        value = {"@enum": desc.name, "name": constant}
        self.handles[handle] = value
        return value

    def stream_exception(self) -> StreamError:
        """TC_EXCEPTION: the writer failed mid-stream and wrote the exception; name it."""
        start = self.pos - 1
        self.handles.clear()
        try:
            thrown = self.read_object()
        except StreamError:
            thrown = None
        detail = ""
        if isinstance(thrown, dict):
            message = thrown.get("detailMessage")
            detail = f": {thrown.get('@class')}" + (f": {message}" if message else "")
        return StreamError(
            f"the writer failed and wrote an exception at offset {start} instead of the object"
            + detail
        )


def decode_modified_utf8(raw: bytes, offset: int) -> str:
    """Java's modified UTF-8: NUL as C0 80, supplementary characters as surrogate pairs."""
    if raw.isascii():
        return raw.decode("ascii")
    try:
        if max(raw) >= 0xF0:  # four-byte forms do not exist in modified UTF-8
            raise UnicodeDecodeError("utf-8", raw, 0, len(raw), "four-byte sequence")
        units = raw.replace(b"\xc0\x80", b"\x00").decode("utf-8", "surrogatepass")
        # Pairs of surrogates become one character; lone ones (legal in Java) stay.
        return units.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    except UnicodeDecodeError:
        raise StreamError(f"malformed modified UTF-8 string at offset {offset}") from None


def float32_value(number: float) -> float | str:
    """A float field as the shortest decimal that reads back as the same float (0.1f is 0.1)."""
    if not math.isfinite(number):
        return non_finite(number)
    packed = struct.pack(">f", number)
    # Precision 6 already gives every float whose shortest form has at most 6 digits.
    for precision in (6, 7, 8):
        candidate = float(f"{number:.{precision}g}")
        if struct.pack(">f", candidate) == packed:
            return candidate
    return float(f"{number:.9g}")


def non_finite(number: float) -> str:
    return "NaN" if math.isnan(number) else ("Infinity" if number > 0 else "-Infinity")


def primitive_values(code: str, raw: bytes, count: int) -> list[Any]:
    """`count` values of a primitive type, as JSON values."""
    if code == "Z":
        return [byte != 0 for byte in raw]
    values = struct.unpack(f">{count}{ARRAY_STRUCT_CODES[code]}", raw)
    if code == "C":
        return [chr(unit) for unit in values]
    if code == "F":
        return [float32_value(value) for value in values]
    if code == "D":
        return [value if math.isfinite(value) else non_finite(value) for value in values]
    return list(values)


def reference_value(entry: Any) -> Any:
    """What a back-reference (or a class description used as a value) stands for in JSON."""
    if isinstance(entry, Pending):
        return {"@ref": entry.class_name}
    if isinstance(entry, ClassDesc):
        return {"@class": "java.io.ObjectStreamClass", "name": entry.name}
    return entry


def block_data_json(raw: bytes | bytearray) -> dict[str, str]:
    return {"@blockdata": base64.b64encode(raw).decode("ascii")}


def generic_object(class_name: str, slots: list[Slot], data: list[Any]) -> dict[str, Any]:
    """`{"@class": ..., fields..., "@data": [...]}` for any class without a special form."""
    value: dict[str, Any] = {"@class": class_name}
    # A field hidden by a subclass field of the same name is qualified with its class.
    hidden_by_subclass: set[str] = set()
    keyed: list[list[tuple[str, Any]]] = []
    for slot in reversed(slots):
        keyed.append(
            [
                (f"{slot.desc.name}.{name}" if name in hidden_by_subclass else name, item)
                for name, item in slot.values
            ]
        )
        hidden_by_subclass.update(name for name, _ in slot.values)
    for pairs in reversed(keyed):
        for key, item in pairs:
            value.setdefault(key, item)
    if data:
        value["@data"] = [
            block_data_json(item) if isinstance(item, bytearray) else item for item in data
        ]
    return value


def object_json(class_name: str, slots: list[Slot]) -> Any:
    """An object's JSON: a collection or boxed value in plain form, else the generic form."""
    layout = COLLECTIONS.get(class_name)
    if layout is not None:
        converted = collection_json(layout, slots)
        if converted is not None:
            return converted
    if class_name in BOXED_CLASSES:
        own = dict(slots[-1].values)
        if "value" in own:
            return own["value"]
    return generic_object(class_name, slots, [item for slot in slots for item in slot.annotation])


def collection_json(layout: CollectionLayout, slots: list[Slot]) -> Any:
    """The plain JSON of a known collection, or None when the stream does not look like one."""
    slot = next((slot for slot in slots if slot.desc.name == layout.data_class), None)
    if slot is None:
        return None
    if layout.kind == "vector":
        fields = dict(slot.values)
        elements, count = fields.get("elementData"), fields.get("elementCount")
        if isinstance(elements, list) and isinstance(count, int) and 0 <= count <= len(elements):
            return elements[:count]
        return None
    if not slot.desc.flags & SC_WRITE_METHOD:
        return None
    items = [item for item in slot.annotation if not isinstance(item, bytearray)][layout.skip :]
    if layout.kind == "list":
        return items
    if len(items) % 2:
        return None
    keys, values = items[0::2], items[1::2]
    if all(isinstance(key, str) and not key.startswith("@") for key in keys):
        return dict(zip(keys, values, strict=True))
    return [{"key": key, "value": value} for key, value in zip(keys, values, strict=True)]


def check_expansion(root: Any) -> None:
    """Fail when the value, with shared parts expanded as JSON will write them, is too big.

    Shared objects are one Python object referenced from several places, so the value is a DAG:
    the expanded size and depth are computed once per distinct node, without recursion.
    """
    if not isinstance(root, dict | list):
        return  # a lone string, number or boolean: the input size already bounds it
    sizes: dict[int, tuple[int, int]] = {}  # id(container) -> (approximate chars, depth)
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if id(node) in sizes:
            continue
        children = list(node.values()) if isinstance(node, dict) else node
        if not children_done:
            stack.append((node, True))
            stack.extend((child, False) for child in children if isinstance(child, dict | list))
            continue
        chars = 2 + (sum(len(key) + 4 for key in node) if isinstance(node, dict) else 0)
        depth = 1
        for child in children:
            if isinstance(child, dict | list):
                child_chars, child_depth = sizes[id(child)]
                chars += child_chars
                depth = max(depth, child_depth + 1)
            else:
                chars += len(child) + 3 if isinstance(child, str) else 8
        if depth > MAX_DEPTH:
            raise StreamError(
                f"nesting deeper than {MAX_DEPTH} levels once back-references are expanded"
            )
        if chars > MAX_JSON_CHARS:
            raise StreamError(
                f"JSON larger than {MAX_JSON_CHARS} characters once back-references are expanded"
            )
        sizes[id(node)] = (chars, depth)


def stream_bytes(data: str | bytes) -> bytes:
    """The raw stream from base64 text or bytes, within the size limit."""
    if isinstance(data, str):
        if len(data) > MAX_INPUT_CHARS:
            raise StreamError(f"input longer than {MAX_INPUT_CHARS} characters")
        compact = "".join(data.split())
        if not compact.isascii():
            raise StreamError("not base64: non-ASCII characters")
        try:
            raw = base64.b64decode(compact + "=" * (-len(compact) % 4), validate=True)
        except binascii.Error as error:
            raise StreamError(f"not base64: {error}") from None
    elif isinstance(data, bytes | bytearray | memoryview):
        raw = bytes(data)
    else:
        raise StreamError(f"unsupported input type {type(data).__name__}")
    if not raw:
        raise StreamError("empty input")
    if len(raw) > MAX_INPUT_BYTES:
        raise StreamError(f"stream larger than {MAX_INPUT_BYTES} bytes")
    return raw


def decode(data: str | bytes) -> Any:
    """The stream's value as JSON-ready Python data, checked against every limit."""
    value = Reader(stream_bytes(data)).read_stream()
    check_expansion(value)
    return value


def guarded(action: Callable[[], T]) -> tuple[T | None, str | None]:
    """(result, None), or (None, reason): runs in Spark tasks, where an exception fails the run."""
    try:
        return action(), None
    except StreamError as error:
        return None, str(error)
    except RecursionError:
        return None, "nesting too deep for the decoder"
    except MemoryError:
        return None, "out of memory while decoding"
    except Exception as error:  # a bug here must still reject one message, not fail the run
        return None, f"internal error: {type(error).__name__}: {error}"


def to_json_text(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return LONE_SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def java_object_json(data: str | bytes | None) -> tuple[str | None, str | None]:
    """Base64 text or raw bytes of a serialization stream -> (JSON text, None) or (None, reason).

    NULL gives (None, None). The JSON conventions are in the module docstring.
    """
    if data is None:
        return None, None
    return guarded(lambda: to_json_text(decode(data)))


# ---------- DDLMeta / FastSQL AST summary

# FastSQL (and Druid, its open-source sibling) name statements by dialect: SQLCreateTableStatement,
# MySqlCreateTableStatement, OracleCreateTableStatement, ... so the simple name's ending decides.
STATEMENT_TYPES = (
    ("AlterTableStatement", "alter_table"),
    ("CreateTableStatement", "create_table"),
    ("DropTableStatement", "drop_table"),
    ("TruncateStatement", "truncate"),
    ("RenameTableStatement", "rename_table"),
    ("CreateIndexStatement", "create_index"),
    ("DropIndexStatement", "drop_index"),
)
QUOTES = '`"'


def simple_name(node: Any) -> str:
    """`com.x.Outer$Inner` -> `Inner`; "" for anything that is not a decoded object."""
    if isinstance(node, dict) and isinstance(node.get("@class"), str):
        return re.split(r"[.$]", node["@class"])[-1]
    return ""


def as_list(node: Any) -> list[Any]:
    return node if isinstance(node, list) else []


def as_dict(node: Any) -> dict[str, Any]:
    return node if isinstance(node, dict) else {}


def unquote(identifier: str) -> str:
    """Strip FastSQL's kept quotes: `name` or "name" (a doubled quote inside stands for one)."""
    if len(identifier) >= 2 and identifier[0] == identifier[-1] and identifier[0] in QUOTES:
        quote = identifier[0]
        return identifier[1:-1].replace(quote * 2, quote)
    return identifier


def name_text(node: Any) -> str | None:
    """The dotted name of an identifier, property (`db.table`), table source or column."""
    if isinstance(node, str):
        return unquote(node)
    if not simple_name(node):
        return None
    if simple_name(node) == "SQLPropertyExpr":
        owner, name = name_text(node.get("owner")), name_text(node.get("name"))
        return f"{owner}.{name}" if owner and name else name
    if "expr" in node:  # SQLExprTableSource
        return name_text(node["expr"])
    return name_text(node.get("name"))


def argument_text(node: Any) -> str | None:
    """A data type argument: `255` (SQLIntegerExpr), `'a'` (SQLCharExpr) or a name."""
    if isinstance(node, int | float) and not isinstance(node, bool):
        return str(node)
    number = as_dict(node).get("number")
    if isinstance(number, int | float) and not isinstance(number, bool):
        return str(number)
    text = as_dict(node).get("text")
    if isinstance(text, str):
        return "'" + text.replace("'", "''") + "'"
    return name_text(node)


def type_text(node: Any) -> str | None:
    """SQLDataTypeImpl (and subclasses) as written: `varchar(255)`, `int unsigned`."""
    name = as_dict(node).get("name")
    if not isinstance(name, str):
        return None
    text = name
    arguments = as_list(node.get("arguments"))
    rendered = [item for item in map(argument_text, arguments) if item is not None]
    if arguments and len(rendered) == len(arguments):  # a partial list would mislead
        text += "(" + ",".join(rendered) + ")"
    for flag in ("unsigned", "zerofill"):
        if node.get(flag) is True:
            text += " " + flag
    return text


def column_change(
    action: str, name: Any, new_name: Any = None, data_type: Any = None
) -> list[dict[str, Any]]:
    """One entry of `columns` (as a list, empty when the column has no readable name)."""
    old, new = name_text(name), name_text(new_name)
    if old is None:
        return []
    if action == "rename" and new == old:  # MySQL CHANGE without a new name only modifies
        action, new = "modify", None
    return [{"action": action, "name": old, "new_name": new, "data_type": type_text(data_type)}]


def alter_item_columns(item: Any) -> list[dict[str, Any]]:
    """Column changes of one ALTER TABLE item; items that change no column give none."""
    kind, fields = simple_name(item), as_dict(item)
    if kind == "SQLAlterTableAddColumn":
        return [
            change
            for column in as_list(fields.get("columns"))
            for change in column_change("add", column, data_type=as_dict(column).get("dataType"))
        ]
    if kind == "SQLAlterTableDropColumnItem":
        names = as_list(fields.get("columns")) or [fields.get("columnName")]
        return [change for name in names for change in column_change("drop", name)]
    if kind == "MySqlAlterTableModifyColumn":
        column = as_dict(fields.get("newColumnDefinition"))
        return column_change("modify", column, data_type=column.get("dataType"))
    if kind == "SQLAlterTableAlterColumn":
        column = as_dict(fields.get("column"))
        return column_change(
            "modify",
            column or fields.get("originColumn"),
            data_type=column.get("dataType") or fields.get("dataType"),
        )
    if kind == "MySqlAlterTableChangeColumn":
        column = as_dict(fields.get("newColumnDefinition"))
        return column_change(
            "rename", fields.get("columnName"), column, data_type=column.get("dataType")
        )
    if kind == "SQLAlterTableRenameColumn":
        return column_change("rename", fields.get("column"), fields.get("to"))
    return []


def statement_table(statement_type: str, statement: dict[str, Any]) -> str | None:
    """The table a statement acts on (the first one for DROP/TRUNCATE/RENAME of several)."""
    if statement_type in ("alter_table", "create_table"):
        return name_text(statement.get("tableSource")) or name_text(statement.get("name"))
    if statement_type in ("drop_table", "truncate"):
        sources = as_list(statement.get("tableSources"))
        return name_text(sources[0]) if sources else None
    if statement_type == "rename_table":
        items = as_list(statement.get("items"))
        return name_text(items[0]) if items else None
    if statement_type == "create_index":
        definition = as_dict(statement.get("indexDefinition"))
        return name_text(statement.get("table")) or name_text(definition.get("table"))
    return name_text(statement.get("tableName"))  # drop_index


def statement_columns(statement_type: str, statement: dict[str, Any]) -> list[dict[str, Any]]:
    if statement_type == "alter_table":
        return [
            change
            for item in as_list(statement.get("items"))
            for change in alter_item_columns(item)
        ]
    if statement_type == "create_table":
        return [
            change
            for element in as_list(statement.get("tableElementList"))
            if simple_name(element).endswith("ColumnDefinition")
            for change in column_change("add", element, data_type=element.get("dataType"))
        ]
    return []


def clean(text: str | None) -> str | None:
    """Lone surrogates (possible in Java strings) cannot leave as UTF-8: replace them."""
    return None if text is None else LONE_SURROGATE.sub("\ufffd", text)


def summarize(meta: Any) -> dict[str, Any]:
    if simple_name(meta) != "DDLMeta":
        found = meta.get("@class") if isinstance(meta, dict) else type(meta).__name__
        raise StreamError(f"not a DDLMeta object: found {found}")
    statement = as_dict(meta.get("statement"))
    kind = simple_name(statement)
    statement_type = next((name for suffix, name in STATEMENT_TYPES if kind.endswith(suffix)), None)
    db_type = statement.get("dbType")
    if isinstance(db_type, dict):
        db_type = db_type.get("name")
    ddl_text = meta.get("ddlText")
    columns = statement_columns(statement_type, statement) if statement_type else []
    return {
        "ddl_text": clean(ddl_text) if isinstance(ddl_text, str) else None,
        "statement_type": statement_type,
        "db_type": clean(db_type) if isinstance(db_type, str) else None,
        "table_name": clean(statement_table(statement_type, statement)) if statement_type else None,
        "columns": [{key: clean(value) for key, value in change.items()} for change in columns],
    }


def ddl_meta_summary(data: str | bytes | None) -> tuple[dict[str, Any] | None, str | None]:
    """A DataWorks ddlMeta -> ({ddl_text, statement_type, db_type, table_name, columns}, None).

    Bad input gives (None, reason), NULL (None, None). `statement_type` is alter_table,
    create_table, drop_table, truncate, rename_table, create_index or drop_index, or None for any
    other statement (then only `ddl_text` and `db_type` are filled). `columns` lists
    `{"action": add|drop|modify|rename, "name", "new_name", "data_type"}`; a MySQL CHANGE that
    keeps the column's name is a `modify`. Identifier quotes are stripped; data types keep the
    source's spelling with their arguments (`decimal(10,2)`, `int unsigned`).
    """
    if data is None:
        return None, None
    return guarded(lambda: summarize(decode(data)))
