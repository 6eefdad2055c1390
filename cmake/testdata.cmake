# The test data the conformance tests read, as one folder of links in the build tree:
# every file of the repository's tests/data (tokenizer vocabularies with their vectors and
# the small forward references) and, when WAFER_SHARED_TESTDATA_DIR exists, every file of
# it that tests/data does not hold (the larger, optional references). Tests see one folder,
# WAFER_TESTDATA_DIR, whatever the source of each file.
#
# wafer_testdata_view(OUT): makes the folder and sets OUT to its path in the caller.
function(wafer_testdata_view out)
  set(view "${PROJECT_BINARY_DIR}/testdata")
  set(repo "${PROJECT_SOURCE_DIR}/tests/data")
  foreach(sub IN ITEMS tokenizer reference)
    file(GLOB mine LIST_DIRECTORIES false "${repo}/${sub}/*")
    set(names "")
    foreach(f IN LISTS mine)
      get_filename_component(n "${f}" NAME)
      list(APPEND names "${n}")
    endforeach()
    set(targets ${mine})
    if(IS_DIRECTORY "${WAFER_SHARED_TESTDATA_DIR}/${sub}")
      file(GLOB theirs LIST_DIRECTORIES false "${WAFER_SHARED_TESTDATA_DIR}/${sub}/*")
      foreach(f IN LISTS theirs)
        get_filename_component(n "${f}" NAME)
        if(NOT n IN_LIST names)
          list(APPEND targets "${f}")
        endif()
      endforeach()
    endif()
    wafer_link_folder("${view}" "${sub}" ${targets})
  endforeach()
  set(${out} "${view}" PARENT_SCOPE)
  if(IS_DIRECTORY "${WAFER_SHARED_TESTDATA_DIR}")
    set(WAFER_SHARED_TESTDATA_PRESENT ON PARENT_SCOPE)
  else()
    set(WAFER_SHARED_TESTDATA_PRESENT OFF PARENT_SCOPE)
  endif()
endfunction()
