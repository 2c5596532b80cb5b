"""Shape arithmetic shared by the front ends (neuronsim.nki, neuronsim.torch)."""


def row_major_strides(shape):
    """The element strides of a contiguous (row-major, C-order) tensor of this shape."""
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= n
    return tuple(reversed(strides))
