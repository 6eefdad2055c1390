# Removes the files one `cmake --install` wrote, as listed in its install_manifest.txt,
# then the directories under share/wafer that are left empty (nothing else: bin/ and share/
# are shared with other programs). Run by the `uninstall` target, or directly:
#   cmake -DWAFER_MANIFEST=BUILD_DIR/install_manifest.txt -P cmake/uninstall.cmake
if(NOT WAFER_MANIFEST)
  message(FATAL_ERROR "uninstall: pass -DWAFER_MANIFEST=BUILD_DIR/install_manifest.txt")
endif()
if(NOT EXISTS "${WAFER_MANIFEST}")
  message(FATAL_ERROR "uninstall: ${WAFER_MANIFEST} does not exist: nothing was installed from this build directory")
endif()
file(STRINGS "${WAFER_MANIFEST}" files)
set(dirs "")
foreach(f IN LISTS files)
  if(IS_SYMLINK "${f}" OR EXISTS "${f}")
    message(STATUS "Removing ${f}")
    file(REMOVE "${f}")
  else()
    message(STATUS "Already gone: ${f}")
  endif()
  # The directories between the file and share/wafer (inclusive), deepest first later.
  get_filename_component(d "${f}" DIRECTORY)
  while(d MATCHES "/share/wafer(/|$)")
    list(APPEND dirs "${d}")
    get_filename_component(d "${d}" DIRECTORY)
  endwhile()
endforeach()
list(REMOVE_DUPLICATES dirs)
list(SORT dirs)
list(REVERSE dirs)  # children sort after their parents: reversed, they come first
foreach(d IN LISTS dirs)
  if(IS_DIRECTORY "${d}")
    file(GLOB left "${d}/*" "${d}/.*")
    if(NOT left)
      file(REMOVE_RECURSE "${d}")  # empty
    endif()
  endif()
endforeach()
