#!/usr/bin/python3
"""Rewrites the total time in an NTFF trace's trailer (docs/ntff.md), checksum included, to
make a forged but readable trace for robustness tests.

The trailer is the last bytes of the file: tag 0xFF, varints total_ps, instruction_count,
dma_count, semaphore_count, then the FNV-1a 64 of every byte before the checksum (u64le).
It is found as the 0xFF whose four varints end 8 bytes before the end of the file and whose
checksum matches. Usage: ntff_forge.py TRACE.ntff TOTAL_PS (rewrites the file in place).
"""
import struct
import sys

FNV_OFFSET, FNV_PRIME = 0xcbf29ce484222325, 0x100000001b3


def fnv1a(data):
    h = FNV_OFFSET
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & 0xFFFFFFFFFFFFFFFF
    return h


def varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def read_varint(data, pos):
    value, shift = 0, 0
    while pos < len(data):
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, pos
    return None, pos


def set_total(path, total_ps):
    data = open(path, "rb").read()
    checksum = struct.unpack("<Q", data[-8:])[0]
    # The trailer's varints take at most 4 x 10 bytes.
    for start in range(max(len(data) - 8 - 41, 0), len(data) - 8):
        if data[start] != 0xFF:
            continue
        pos, fields = start + 1, []
        for _ in range(4):
            value, pos = read_varint(data, pos)
            fields.append(value)
        if None in fields or pos != len(data) - 8 or fnv1a(data[:pos]) != checksum:
            continue
        body = data[:start + 1] + varint(total_ps) + b"".join(varint(v) for v in fields[1:])
        with open(path, "wb") as f:
            f.write(body + struct.pack("<Q", fnv1a(body)))
        return
    raise SystemExit("ntff_forge: no trailer found in " + path)


if __name__ == "__main__":
    set_total(sys.argv[1], int(sys.argv[2]))
