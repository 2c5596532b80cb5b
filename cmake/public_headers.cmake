# The headers an installed neuronsim needs: the public headers (include/neuronsim/*.hpp) and
# every internal header they include, directly or through other headers. Computed from
# the #include lines, so the installed set follows the code and cannot go stale.
#
# neuronsim_internal_headers(<out-var> <public-headers>...) sets <out-var> to the internal
# headers in that closure, as paths relative to the repository root ("isa/kernel.hpp").
# Quoted and angle includes are both followed when they name a file of the repository:
# "neuronsim/x.hpp" under include/, "folder/x.hpp" under the root, "x.hpp" beside the
# including file. Anything else (<systemc>, <nlohmann/json.hpp>) is a dependency's.
# Every header read is a configure dependency: editing an include line re-runs CMake.

function(neuronsim_internal_headers out)
  set(root ${PROJECT_SOURCE_DIR})
  set(pending ${ARGN})
  set(seen "")
  set(internal "")
  while(pending)
    list(POP_FRONT pending file)
    if(file IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${file})
    file(STRINGS ${file} lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"][^>\"]+[>\"]")
    get_filename_component(dir ${file} DIRECTORY)
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"].*" "\\1" name "${line}")
      if(EXISTS ${root}/include/${name} AND name MATCHES "^neuronsim/")
        list(APPEND pending ${root}/include/${name})
      elseif(name MATCHES "/" AND EXISTS ${root}/${name})
        list(APPEND pending ${root}/${name})
        list(APPEND internal ${name})
      elseif(EXISTS ${dir}/${name} AND NOT IS_DIRECTORY ${dir}/${name})
        # Beside the including file: installed beside it too.
        file(RELATIVE_PATH relative ${root} ${dir}/${name})
        if(NOT relative MATCHES "^include/")
          list(APPEND pending ${dir}/${name})
          list(APPEND internal ${relative})
        endif()
      endif()
    endforeach()
  endwhile()
  set_property(DIRECTORY ${root} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${seen})
  list(REMOVE_DUPLICATES internal)
  list(SORT internal)
  set(${out} ${internal} PARENT_SCOPE)
endfunction()
