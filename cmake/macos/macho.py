#!/usr/bin/env python3
"""What a Mach-O file is, without `file` or Apple's tools.
  macho.py ARCH FILE...
ARCH is arm64 or x86_64. For each FILE prints "FILE: ARCH executable for macOS N+, signed,
loads LIB, LIB..." (its LC_BUILD_VERSION, LC_CODE_SIGNATURE and LC_LOAD_DYLIB commands: an
arm64 executable runs only when signed, ad hoc at least), or why it is not a 64-bit Mach-O
executable of that CPU type; exits 1 if any is not. A signature counts as one only when
every page hash of its code directory matches the file (a tool that rewrites the file after
the linker signed it, a strip for one, leaves a signature macOS refuses to run).
"""
import hashlib
import struct
import sys

MH_MAGIC_64 = 0xFEEDFACF
MH_EXECUTE = 2
CPU_TYPES = {0x0100000C: "arm64", 0x01000007: "x86_64"}
LOAD_DYLIB_COMMANDS = {0xC, 0x80000018, 0x1F}  # LC_LOAD_DYLIB, LC_LOAD_WEAK_DYLIB, LC_REEXPORT_DYLIB
LC_CODE_SIGNATURE = 0x1D
LC_BUILD_VERSION = 0x32
CSMAGIC_EMBEDDED_SIGNATURE = 0xFADE0CC0
CSMAGIC_CODEDIRECTORY = 0xFADE0C02
HASH_TYPES = {1: hashlib.sha1, 2: hashlib.sha256}


def check_signature(data, dataoff, datasize):
    """None when the code directory's page hashes match the file, else what is wrong."""
    magic, _, count = struct.unpack_from(">III", data, dataoff)
    if magic != CSMAGIC_EMBEDDED_SIGNATURE:
        return "no embedded signature at the signature command's offset"
    for i in range(count):
        _, blob = struct.unpack_from(">II", data, dataoff + 12 + 8 * i)
        cd = dataoff + blob
        if struct.unpack_from(">I", data, cd)[0] != CSMAGIC_CODEDIRECTORY:
            continue
        hash_offset, _, _, code_slots, code_limit = struct.unpack_from(">IIIII", data, cd + 16)
        hash_size, hash_type, _, page_log2 = struct.unpack_from(">BBBB", data, cd + 36)
        if hash_type not in HASH_TYPES:
            return "code directory with unknown hash type %d" % hash_type
        page = 1 << page_log2
        for slot in range(code_slots):
            start = slot * page
            digest = HASH_TYPES[hash_type](data[start:min(start + page, code_limit)]).digest()
            stored = data[cd + hash_offset + slot * hash_size:cd + hash_offset + (slot + 1) * hash_size]
            if digest[:hash_size] != stored:
                return "page %d of %d does not match its signed hash" % (slot, code_slots)
        return None
    return "no code directory in the signature"


def describe(path, want):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 32:
        return False, "too short for a Mach-O header"
    magic, cputype, _, filetype, ncmds = struct.unpack_from("<IiiII", data, 0)
    if magic != MH_MAGIC_64:
        return False, "not a 64-bit little-endian Mach-O file (magic %#x)" % magic
    arch = CPU_TYPES.get(cputype, "cputype %#x" % cputype)
    if arch != want:
        return False, "Mach-O for %s, not %s" % (arch, want)
    if filetype != MH_EXECUTE:
        return False, "Mach-O file of type %d, not an executable" % filetype
    libs, off, signed, minos = [], 32, False, "?"
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", data, off)
        if cmd == LC_CODE_SIGNATURE:
            problem = check_signature(data, *struct.unpack_from("<II", data, off + 8))
            if problem:
                return False, "signature does not match the file: " + problem
            signed = True
        elif cmd == LC_BUILD_VERSION:
            version = struct.unpack_from("<I", data, off + 12)[0]  # xxxx.yy.zz
            minos = "%d.%d" % (version >> 16, (version >> 8) & 0xFF)
        elif cmd in LOAD_DYLIB_COMMANDS:
            name_off = struct.unpack_from("<I", data, off + 8)[0]
            libs.append(data[off + name_off:off + size].split(b"\0")[0].decode())
        off += size
    return True, "%s executable for macOS %s+, %s, loads %s" % (
        arch, minos, "signed" if signed else "not signed", ", ".join(libs) or "nothing")


def main():
    want, ok = sys.argv[1], True
    for path in sys.argv[2:]:
        good, text = describe(path, want)
        ok = ok and good
        print("%s: %s" % (path, text))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
