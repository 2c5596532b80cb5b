# neuronsim_byte_array(out input name): sets `out` to the C++ definition of a char array
# `name` holding the bytes of file `input` (any content is safe: every byte is a number), and
# `out`_size to their count. Used by the embedders run as scripts (embed_targets.cmake,
# embed_files.cmake).
function(neuronsim_byte_array out input name)
  file(READ "${input}" hex HEX)
  string(LENGTH "${hex}" hex_length)
  math(EXPR size "${hex_length} / 2")
  # Sixteen bytes a line: "0x7b, 0x0a, ..."
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1, " bytes "${hex}")
  string(REPEAT "0x[0-9a-f][0-9a-f], " 16 sixteen)  # CMake regexes have no {16}
  string(REGEX REPLACE "(${sixteen})" "\\1\n    " bytes "${bytes}")
  string(REPLACE ", \n" ",\n" bytes "${bytes}")
  set(${out} "const unsigned char ${name}[] = {\n    ${bytes}0};\n" PARENT_SCOPE)
  set(${out}_size ${size} PARENT_SCOPE)
endfunction()
