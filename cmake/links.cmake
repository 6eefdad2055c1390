# Include folders made of symbolic links, which the build uses to enforce the layers (each
# library compiles against a folder holding links to what it may include).
#
# wafer_link_folder(FOLDER PREFIX TARGET...) makes FOLDER/PREFIX/<name> a link to each
# TARGET path (named by its last component) and removes any other entry of FOLDER/PREFIX.
# It is idempotent, and it never recurses through a link: removal is of the link itself, so
# two configures of one build tree at once (or a tree left half-made) cannot touch the
# sources a link points to. A host that cannot make symbolic links (Windows without
# Developer Mode) stops the configure with a message; a copy would go stale silently.
function(wafer_link_folder folder prefix)
  set(dir "${folder}/${prefix}")
  set(wanted "")
  foreach(target IN LISTS ARGN)
    get_filename_component(name "${target}" NAME)
    list(APPEND wanted "${name}")
  endforeach()
  if(IS_SYMLINK "${dir}" OR (EXISTS "${dir}" AND NOT IS_DIRECTORY "${dir}"))
    file(REMOVE "${dir}")
  endif()
  file(MAKE_DIRECTORY "${dir}")
  file(GLOB entries LIST_DIRECTORIES true RELATIVE "${dir}" "${dir}/*")
  foreach(entry IN LISTS entries)
    if(NOT entry IN_LIST wanted)
      wafer_remove_entry("${dir}/${entry}")
    endif()
  endforeach()
  foreach(target IN LISTS ARGN)
    get_filename_component(name "${target}" NAME)
    set(link "${dir}/${name}")
    if(IS_SYMLINK "${link}")
      file(READ_SYMLINK "${link}" points_to)
      if(points_to STREQUAL target)
        continue()
      endif()
    endif()
    wafer_remove_entry("${link}")
    file(CREATE_LINK "${target}" "${link}" SYMBOLIC RESULT failed)
    if(failed AND NOT IS_SYMLINK "${link}")  # (a configure running beside this one made it)
      message(FATAL_ERROR "cannot make the symbolic link ${link} -> ${target} (${failed}); "
        "the build needs symbolic links (on Windows: turn on Developer Mode)")
    endif()
  endforeach()
endfunction()

# Removes a link or a file as itself; a real folder (a copy an older build made) with all it
# holds. Never follows a link.
function(wafer_remove_entry path)
  if(IS_SYMLINK "${path}" OR (EXISTS "${path}" AND NOT IS_DIRECTORY "${path}"))
    file(REMOVE "${path}")
  elseif(IS_DIRECTORY "${path}")
    file(GLOB inner LIST_DIRECTORIES true "${path}/*")
    foreach(entry IN LISTS inner)
      wafer_remove_entry("${entry}")
    endforeach()
    file(REMOVE_RECURSE "${path}")  # now empty
  endif()
endfunction()
