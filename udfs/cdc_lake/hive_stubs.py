"""Stand-ins for the Hive classes pyspark's jars name but do not ship.

Hive's `FunctionRegistry`, on first use, instantiates every built-in table function; one of
them, `GenericUDTFGetSplits`, names `org.apache.hadoop.hive.llap.security.LlapSigner$Signable`
from hive-llap-common, which the pyspark wheel leaves out (SPARK-51041 added it back for
Spark's own tests only). Spark's SQL never touches that registry, but the Thrift server does
when it closes a session on a worker thread that has no Hive client yet: the close fails with
`NoClassDefFoundError`, and dbt reports whichever node used that connection as an error, so a
build fails at random and skips everything downstream of it. An empty interface of that name
lets the registry initialise. Nothing calls it: LLAP is Hive's own execution engine, not
Spark's.

The class file is written here rather than compiled, so the server needs a Java runtime only,
not a JDK, and the repository carries no binary.
"""

from __future__ import annotations

import struct
from pathlib import Path

MISSING_INTERFACES = ("org.apache.hadoop.hive.llap.security.LlapSigner$Signable",)

_JAVA_8_CLASS_FILE = 52
_ACC_PUBLIC_ABSTRACT_INTERFACE = 0x0001 | 0x0200 | 0x0400
_CONSTANT_UTF8 = 1
_CONSTANT_CLASS = 7


def _utf8(text: str) -> bytes:
    encoded = text.encode()
    return struct.pack(">BH", _CONSTANT_UTF8, len(encoded)) + encoded


def empty_interface(binary_name: str) -> bytes:
    """Class file of `public interface <binary_name> {}` (JVMS chapter 4, version 52).

    Constant pool: 1 the name, 2 its class, 3 `java/lang/Object`, 4 its class (an
    interface's superclass must be Object); no fields, methods or attributes.
    """
    internal = binary_name.replace(".", "/")
    pool = (
        _utf8(internal)
        + struct.pack(">BH", _CONSTANT_CLASS, 1)
        + _utf8("java/lang/Object")
        + struct.pack(">BH", _CONSTANT_CLASS, 3)
    )
    header = struct.pack(">IHHH", 0xCAFEBABE, 0, _JAVA_8_CLASS_FILE, 5)
    body = struct.pack(">HHHHHHH", _ACC_PUBLIC_ABSTRACT_INTERFACE, 2, 4, 0, 0, 0, 0)
    return header + pool + body


def write_stub_classes(folder: Path) -> None:
    """Write every missing interface under `folder` (a class-path root)."""
    for binary_name in MISSING_INTERFACES:
        path = folder / (binary_name.replace(".", "/") + ".class")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(empty_interface(binary_name))
