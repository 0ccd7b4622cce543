#!/usr/bin/env python3
"""Writes the published test cases of the two reference parsers as files, with the outcome each
must have here, into safetensors/ and npy/ beside this script, and the list cases.tsv:

    file <TAB> expected <TAB> where the case comes from

expected is "ok", "ok (shape)" (an .npy whose values are 0, 1, 2, ... in C order), "ok N" (a
safetensors file holding N tensors) or "error: TEXT" (refused with a message containing TEXT).

Sources: huggingface/safetensors safetensors/src/tensor.rs (tests module) and
bindings/python/tests/test_simple.py; numpy numpy/lib/tests/test_format.py. The byte strings of
those tests are copied as they are; the numpy arrays they round-trip are written here the way
numpy.lib.format writes them (no numpy needed). Run it from anywhere: python3 make_cases.py
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
cases = []


def put(folder, name, data, expected, source):
    os.makedirs(os.path.join(HERE, folder), exist_ok=True)
    with open(os.path.join(HERE, folder, name), "wb") as f:
        f.write(data)
    cases.append((f"{folder}/{name}", expected, source))


# --- safetensors ------------------------------------------------------------------------------
RS = "safetensors/src/tensor.rs"
PY = "bindings/python/tests/test_simple.py"
ZEROS16 = b"\x00" * 16
TEST_I32 = b'{"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}}'

put("safetensors", "empty_shapes_allowed.safetensors",
    b'8\x00\x00\x00\x00\x00\x00\x00{"test":{"dtype":"I32","shape":[],"data_offsets":[0,4]}}\x00\x00\x00\x00',
    "ok 1", f"{RS} test_empty_shapes_allowed")
put("safetensors", "deserialization.safetensors", b"<\x00\x00\x00\x00\x00\x00\x00" + TEST_I32 + ZEROS16,
    "ok 1", f"{RS} test_deserialization, test_lifetimes; {PY} test_deserialization")
# test_json_attack: ten tensors that all claim bytes [0, 16] of a 16-byte data section.
attack = "{" + ",".join(f'"weight_{i}":{{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}}'
                        for i in range(10)) + "}"
put("safetensors", "json_attack.safetensors", struct.pack("<Q", len(attack)) + attack.encode() + ZEROS16,
    "error: overlap in the data section", f"{RS} test_json_attack (InvalidOffset)")
put("safetensors", "metadata_incomplete_buffer_extra.safetensors",
    b"<\x00\x00\x00\x00\x00\x00\x00" + TEST_I32 + ZEROS16 + b"extra_bogus_data_for_polyglot_file",
    "error: at the end of the data section belong to no tensor",
    f"{RS} test_metadata_incomplete_buffer (MetadataIncompleteBuffer)")
put("safetensors", "metadata_incomplete_buffer_missing.safetensors",
    b"<\x00\x00\x00\x00\x00\x00\x00" + TEST_I32 + b"\x00" * 14,
    "error: lie outside the data section of 14 bytes",
    f"{RS} test_metadata_incomplete_buffer, 2 bytes missing (MetadataIncompleteBuffer)")
put("safetensors", "header_too_large.safetensors", b"<\x00\x00\x00\x00\xff\xff\xff" + TEST_I32 + ZEROS16,
    "error: over the format's limit of 100000000", f"{RS} test_header_too_large (HeaderTooLarge)")
put("safetensors", "header_too_small.safetensors", b"",
    "error: shorter than the 8-byte header length", f"{RS} test_header_too_small (HeaderTooSmall)")
put("safetensors", "invalid_header_length.safetensors", b"<\x00\x00\x00\x00\x00\x00\x00",
    "error: the header length claims 60 bytes but only 0 follow it",
    f"{RS} test_invalid_header_length (InvalidHeaderLength)")
put("safetensors", "invalid_header_non_utf8.safetensors", b"\x01\x00\x00\x00\x00\x00\x00\x00\xff",
    "error: the header is 1 bytes long", f"{RS} test_invalid_header_non_utf8 (InvalidHeader)")
put("safetensors", "invalid_header_not_json.safetensors", b"\x01\x00\x00\x00\x00\x00\x00\x00{",
    "error: the header is 1 bytes long", f"{RS} test_invalid_header_not_json (InvalidHeaderDeserialization)")
put("safetensors", "whitespace_padded_header.safetensors", b"\x06\x00\x00\x00\x00\x00\x00\x00{}\x0D\x20\x09\x0A",
    "ok 0", f"{RS} test_whitespace_padded_header")
put("safetensors", "whitespace_leading_padded_header.safetensors",
    b"\x06\x00\x00\x00\x00\x00\x00\x00\x09\x0A{}\x0D\x20", "ok 0", f"{RS} test_whitespace_leading_padded_header")
put("safetensors", "zero_sized_tensor.safetensors",
    b'<\x00\x00\x00\x00\x00\x00\x00{"test":{"dtype":"I32","shape":[2,0],"data_offsets":[0, 0]}}',
    "ok 1", f"{RS} test_zero_sized_tensor")
put("safetensors", "invalid_info.safetensors",
    b'<\x00\x00\x00\x00\x00\x00\x00{"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0, 4]}}',
    "error: claims 16 bytes but its data range [0, 4] holds 4", f"{RS} test_invalid_info (TensorInvalidInfo)")
put("safetensors", "validation_overflow_shape.safetensors",
    b'O\x00\x00\x00\x00\x00\x00\x00{"test":{"dtype":"I32","shape":[2,18446744073709551614],"data_offsets":[0,16]}}'
    + ZEROS16, "error: shape entry 18446744073709551614 is too large",
    f"{RS} test_validation_overflow, shape (ValidationOverflow)")
put("safetensors", "validation_overflow_bytes.safetensors",
    b'N\x00\x00\x00\x00\x00\x00\x00{"test":{"dtype":"I32","shape":[2,9223372036854775807],"data_offsets":[0,16]}}'
    + ZEROS16, "error: overflows 64 bits", f"{RS} test_validation_overflow, byte count (ValidationOverflow)")
put("safetensors", "serialization.safetensors", bytes([
    64, 0, 0, 0, 0, 0, 0, 0, 123, 34, 97, 116, 116, 110, 46, 48, 34, 58, 123, 34, 100,
    116, 121, 112, 101, 34, 58, 34, 70, 51, 50, 34, 44, 34, 115, 104, 97, 112, 101, 34,
    58, 91, 49, 44, 50, 44, 51, 93, 44, 34, 100, 97, 116, 97, 95, 111, 102, 102, 115,
    101, 116, 115, 34, 58, 91, 48, 44, 50, 52, 93, 125, 125, 0, 0, 0, 0, 0, 0, 128, 63,
    0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64, 0, 0, 160, 64]), "ok 1", f"{RS} test_serialization")
put("safetensors", "serialization_fp4.safetensors", bytes([
    64, 0, 0, 0, 0, 0, 0, 0, 123, 34, 97, 116, 116, 110, 46, 48, 34, 58, 123, 34, 100,
    116, 121, 112, 101, 34, 58, 34, 70, 52, 34, 44, 34, 115, 104, 97, 112, 101, 34, 58,
    91, 49, 44, 50, 93, 44, 34, 100, 97, 116, 97, 95, 111, 102, 102, 115, 101, 116,
    115, 34, 58, 91, 48, 44, 49, 93, 125, 125, 32, 32, 32, 32, 0]), "ok 1", f"{RS} test_serialization_fp4")
fp4_3 = b'{"attn.0":{"dtype":"F4","shape":[1,3],"data_offsets":[0,2]}}'
put("safetensors", "fp4_misaligned.safetensors", struct.pack("<Q", len(fp4_3)) + fp4_3 + b"\x00\x01",
    "error: does not fill a whole number of bytes", f"{RS} test_serialization_fp4_misaligned (MisalignedSlice)")
fp4_2 = b'{"attn.0":{"dtype":"F4","shape":[1,2],"data_offsets":[0,2]}}'
put("safetensors", "fp4_invalid.safetensors", struct.pack("<Q", len(fp4_2)) + fp4_2 + b"\x00\x01",
    "error: claims 1 bytes but its data range [0, 2] holds 2", f"{RS} test_serialization_fp4_invalid (InvalidTensorView)")
put("safetensors", "empty.safetensors", bytes([8, 0, 0, 0, 0, 0, 0, 0, 123, 125, 32, 32, 32, 32, 32, 32]),
    "ok 0", f"{RS} test_empty")
put("safetensors", "empty_with_metadata.safetensors", bytes([
    40, 0, 0, 0, 0, 0, 0, 0, 123, 34, 95, 95, 109, 101, 116, 97, 100, 97, 116, 97, 95,
    95, 34, 58, 123, 34, 102, 114, 97, 109, 101, 119, 111, 114, 107, 34, 58, 34, 112,
    116, 34, 125, 125, 32, 32, 32, 32, 32]), "ok 0", f"{RS} test_empty, with metadata")
put("safetensors", "serialization_forced_alignment.safetensors", bytes([
    72, 0, 0, 0, 0, 0, 0, 0, 123, 34, 97, 116, 116, 110, 48, 34, 58, 123, 34, 100, 116,
    121, 112, 101, 34, 58, 34, 70, 51, 50, 34, 44, 34, 115, 104, 97, 112, 101, 34, 58,
    91, 49, 44, 49, 44, 50, 44, 51, 93, 44, 34, 100, 97, 116, 97, 95, 111, 102, 102,
    115, 101, 116, 115, 34, 58, 91, 48, 44, 50, 52, 93, 125, 125, 32, 32, 32, 32, 32,
    32, 32, 0, 0, 0, 0, 0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64, 0, 0,
    160, 64]), "ok 1", f"{RS} test_serialization_forced_alignement")
put("safetensors", "python_serialization.safetensors",
    b'@\x00\x00\x00\x00\x00\x00\x00{"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}}   '
    b" \x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00", "ok 1", f"{PY} test_serialization")
put("safetensors", "python_deserialization_metadata.safetensors",
    b'f\x00\x00\x00\x00\x00\x00\x00{"__metadata__":{"framework":"pt"},"test1":{"dtype":"I32","shape":[2,2],'
    b'"data_offsets":[0,16]}}' b"       " + ZEROS16, "ok 1", f"{PY} test_deserialization_metadata")
put("safetensors", "python_forces_alignment.safetensors",
    b'\x80\x00\x00\x00\x00\x00\x00\x00{"test1":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]},'
    b'"test2":{"dtype":"F16","shape":[2,2],"data_offsets":[16,24]}}'
    b"      " + b"\x00" * 24, "ok 2", f"{PY} test_serialization_forces_alignment")
# What the reference refuses through serde_json, though its tests do not spell it out.
put("safetensors", "byte_order_mark.safetensors",
    struct.pack("<Q", 3 + len(TEST_I32)) + b"\xef\xbb\xbf" + TEST_I32 + ZEROS16,
    "error: byte order mark", "serde_json::from_str: a byte-order mark is not JSON whitespace")
dup = b'{"test":{"dtype":"I32","shape":[2],"data_offsets":[0,8]},"test":{"dtype":"I32","shape":[2],"data_offsets":[8,16]}}'
put("safetensors", "duplicate_tensor_name.safetensors", struct.pack("<Q", len(dup)) + dup + ZEROS16,
    "error: tensor 'test' appears twice", "a JSON object with a repeated key (refused here; serde keeps the last)")

# --- npy ----------------------------------------------------------------------------------------
NP = "numpy/lib/tests/test_format.py"


def header(descr, fortran, shape, version=(1, 0)):
    """numpy.lib.format._write_array_header: sorted keys, padded with spaces to a multiple of 64."""
    if len(shape) == 1:
        shape_text = f"({shape[0]},)"
    else:
        shape_text = "(" + ", ".join(str(d) for d in shape) + ")"
    text = "{'descr': %r, 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape_text)
    length_bytes = 2 if version == (1, 0) else 4
    prefix = 6 + 2 + length_bytes
    pad = 64 - (prefix + len(text) + 1) % 64
    text = (text + " " * pad + "\n").encode("latin1" if version != (3, 0) else "utf8")
    fmt = "<H" if version == (1, 0) else "<I"
    return b"\x93NUMPY" + bytes(version) + struct.pack(fmt, len(text)) + text


def arange(descr, shape, fortran=False):
    """Values 0, 1, 2, ... in C order, stored as numpy stores them (Fortran: first index fastest)."""
    count = 1
    for d in shape:
        count *= d
    order = descr[0] if descr[0] in "<>" else "<"
    code = {"f2": "e", "f4": "f", "f8": "d"}[descr[1:]]
    values = list(range(count))
    if fortran and len(shape) > 1:
        strides, s = [], 1  # C-order strides, in items
        for d in reversed(shape):
            strides.insert(0, s)
            s *= d
        values, index = [], [0] * len(shape)
        for _ in range(count):
            values.append(sum(i * st for i, st in zip(index, strides)))
            for axis in range(len(shape)):  # first index fastest
                index[axis] += 1
                if index[axis] < shape[axis]:
                    break
                index[axis] = 0
    return struct.pack(order + code * count, *values)


def shape_text(shape):
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


# basic_arrays of test_format.py that are weights: float16/32/64 in both byte orders, C and
# Fortran order, 0-d to 3-d, empty; test_roundtrip and test_memmap_roundtrip read them back.
for descr in ["<f2", "<f4", "<f8", ">f2", ">f4", ">f8"]:
    for shape in [(), (0,), (10,), (3, 5), (2, 3, 4)]:
        for fortran in ([False, True] if len(shape) > 1 else [False]):
            name = "%s_%s%s.npy" % (descr.replace("<", "le").replace(">", "be"),
                                    "x".join(map(str, shape)) or "scalar", "_fortran" if fortran else "")
            put("npy", name, header(descr, fortran, list(shape)) + arange(descr, shape, fortran),
                "ok " + shape_text(shape), f"{NP} basic_arrays, test_roundtrip")
put("npy", "version_2_0.npy", header("<f8", False, [3, 6], (2, 0)) + arange("<f8", (3, 6)),
    "ok (3, 6)", f"{NP} test_read_array_header_2_0")
put("npy", "version_3_0.npy", header("<f4", False, [2], (3, 0)) + arange("<f4", (2,)),
    "ok (2,)", f"{NP} test_unicode_field_names (version 3.0)")
put("npy", "version_1_0.npy", header("<f8", False, [3, 6]) + arange("<f8", (3, 6)),
    "ok (3, 6)", f"{NP} test_read_array_header_1_0")

# test_read_magic_bad_magic, test_read_version_1_0_bad_magic: the magic alone, or as the start
# of an otherwise valid file.
malformed_magic = [b"\x92NUMPY\x01\x00", b"\x00NUMPY\x01\x00", b"\x93numpy\x01\x00", b"\x93MATLB\x01\x00",
                   b"\x93NUMPY\x01", b"\x93NUMPY", b""]
valid_rest = header("<f8", False, [3])[8:] + arange("<f8", (3,))
for i, magic in enumerate(malformed_magic):
    put("npy", f"malformed_magic_{i}.npy", magic, "error: not a .npy file", f"{NP} malformed_magic[{i}]")
    if len(magic) == 8:
        put("npy", f"malformed_magic_{i}_full.npy", magic + valid_rest, "error: magic",
            f"{NP} malformed_magic[{i}] before a valid header")
bad_version_magic = [b"\x93NUMPY\x01\x01", b"\x93NUMPY\x00\x00", b"\x93NUMPY\x00\x01", b"\x93NUMPY\x02\x00",
                     b"\x93NUMPY\x02\x02", b"\x93NUMPY\xff\xff"]
for i, magic in enumerate(bad_version_magic):
    put("npy", f"bad_version_magic_{i}.npy", magic, "error: not a .npy file", f"{NP} bad_version_magic[{i}]")
    if magic[6:] != b"\x02\x00":
        put("npy", f"bad_version_magic_{i}_full.npy", magic + valid_rest, "error: unsupported .npy version",
            f"{NP} bad_version_magic[{i}] before a valid header")

# test_bad_header
put("npy", "bad_header_empty.npy", b"", "error: not a .npy file", f"{NP} test_bad_header: empty")
put("npy", "bad_header_one_byte.npy", b"1", "error: not a .npy file", f"{NP} test_bad_header: b'1'")
put("npy", "bad_header_length_only.npy", b"\x01\x00", "error: not a .npy file",
    f"{NP} test_bad_header: a header length and nothing else")
put("npy", "bad_header_missing_key.npy",
    b"\x93NUMPY\x01\x006\x00{'descr': 'x', 'shape': (1, 2), }" b"                    \n",
    "error: unsupported dtype 'x'", f"{NP} test_bad_header: without 'fortran_order' (and descr 'x')")
missing = "{'descr': '<f4', 'shape': (1, 2), }"
missing = missing + " " * (64 - (10 + len(missing) + 1) % 64) + "\n"
put("npy", "bad_header_missing_key_valid_descr.npy",
    b"\x93NUMPY\x01\x00" + struct.pack("<H", len(missing)) + missing.encode() + arange("<f4", (1, 2)),
    "error: lacks one of 'descr', 'fortran_order' and 'shape'", f"{NP} test_bad_header: without 'fortran_order'")
extra = "{'descr': 'x', 'extrakey': -1, 'fortran_order': False, 'shape': (1, 2), }"
extra = extra + " " * (64 - (10 + len(extra) + 1) % 64) + "\n"
put("npy", "bad_header_extra_key.npy", b"\x93NUMPY\x01\x00" + struct.pack("<H", len(extra)) + extra.encode(),
    "error: unsupported dtype 'x'", f"{NP} test_bad_header: 'extrakey' (and descr 'x')")
extra = "{'descr': '<f4', 'extrakey': -1, 'fortran_order': False, 'shape': (1, 2), }"
extra = extra + " " * (64 - (10 + len(extra) + 1) % 64) + "\n"
put("npy", "bad_header_extra_key_valid_descr.npy",
    b"\x93NUMPY\x01\x00" + struct.pack("<H", len(extra)) + extra.encode() + arange("<f4", (1, 2)),
    "error: unexpected or repeated key 'extrakey'", f"{NP} test_bad_header: 'extrakey'")
put("npy", "header_longer_than_file.npy", b"\x93NUMPY\x01\x00\x00\x01{'descr': '<f4'",
    "error: the file ends inside the .npy header", f"{NP} test_bad_header: header shorter than indicated size")

# test_roundtrip_truncated, test_file_truncated: one byte short.
put("npy", "truncated_data.npy", (header("<f4", False, [3, 5]) + arange("<f4", (3, 5)))[:-1],
    "error: the data is truncated", f"{NP} test_file_truncated")
put("npy", "truncated_empty.npy", header("<f4", False, [0])[:-1],
    "error: the file ends inside the .npy header", f"{NP} test_file_truncated (an empty array: the header)")
# Not weights: what numpy reads but the program refuses, each for its reason.
put("npy", "int64.npy", header("<i8", False, [3]) + struct.pack("<3q", 0, 1, 2),
    "error: is not a floating-point type", f"{NP} basic_arrays (int64)")
put("npy", "complex.npy", header("<c8", False, [2]) + b"\x00" * 16, "error: unsupported dtype '<c8'",
    f"{NP} basic_arrays (complex64)")
structured = b"{'descr': [('x', '<i4', (2,)), ('y', '<f8', (2, 2)), ('z', '|u1')], 'fortran_order': False, 'shape': (2,), }"
structured = structured + b" " * (64 - (10 + len(structured) + 1) % 64) + b"\n"
put("npy", "structured.npy",
    b"\x93NUMPY\x01\x00" + struct.pack("<H", len(structured)) + structured + b"\x00" * 82,
    "error: structured dtypes are not supported", f"{NP} record_arrays")
put("npy", "object.npy", header("|O", False, [2]) + b"\x00" * 16, "error: unsupported dtype '|O'",
    f"{NP} test_pickle_disallow (object arrays)")
put("npy", "huge_header.npy",
    b"\x93NUMPY\x02\x00" + struct.pack("<I", 200000) + b"{'descr': [" + b"('f0', '<i4'), " * 13000 + b"]",
    "error: the .npy header claims 200000 bytes (limit 65536)", f"{NP} test_huge_header")

with open(os.path.join(HERE, "cases.tsv"), "w") as f:
    f.write("# file\texpected\tsource (written by make_cases.py)\n")
    for case in cases:
        f.write("\t".join(case) + "\n")
print(f"{len(cases)} cases")
