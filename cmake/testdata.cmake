# The test data the conformance tests read, as one folder of links in the build tree:
# every file of the repository's tests/data (tokenizer vocabularies with their vectors and
# the small forward references) and, when WAFER_SHARED_TESTDATA_DIR exists, every file of
# it that tests/data does not hold (the larger, optional references). The reference models
# that tests/data keeps only the llama.cpp JSON of (F32, F16, BF16, tiny-llama Q8_0) are
# regenerated from their recipe into the build tree when neither folder holds them
# (wafer_synth_references below). Tests see one folder, WAFER_TESTDATA_DIR, whatever the
# source of each file.
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
          list(APPEND names "${n}")
        endif()
      endforeach()
    endif()
    if(sub STREQUAL "reference")
      wafer_synth_references(made "${names}")
      list(APPEND targets ${made})
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

# The synthetic reference models that tools/reference/synth_models.py regenerates
# byte for byte (it checks each file's sha256 against its JSON's model_sha256).
set(WAFER_SYNTH_REFERENCES tiny-llama-f32 tiny-qwen2-f16 small-llama-bf16 tiny-llama-q8_0)

# wafer_synth_references(OUT HAVE): makes, in <build>/testdata-synth/reference, each model
# of WAFER_SYNTH_REFERENCES whose .gguf is not among the file names HAVE and whose JSON
# tests/data holds; sets OUT to their paths. A file is remade only when the generator, the
# JSON or the vocabulary it copies is newer. numpy is required then (scripts/setup.sh
# installs python3-numpy): without it the configure stops, so that the tests that read
# these models never skip for want of them.
function(wafer_synth_references out have)
  set(repo "${PROJECT_SOURCE_DIR}/tests/data")
  set(tool "${PROJECT_SOURCE_DIR}/tools/reference")
  set(dir "${PROJECT_BINARY_DIR}/testdata-synth/reference")
  set(inputs "${tool}/synth_models.py" "${tool}/gguf_writer.py" "${tool}/gguf_reader.py"
             "${repo}/tokenizer/ggml-vocab-llama-spm.gguf" "${repo}/reference/tiny-qwen2-q8_0.gguf")
  set(made "")
  set(stale "")
  foreach(stem IN LISTS WAFER_SYNTH_REFERENCES)
    if("${stem}.gguf" IN_LIST have OR NOT EXISTS "${repo}/reference/${stem}.json")
      continue()
    endif()
    set(file "${dir}/${stem}.gguf")
    list(APPEND made "${file}")
    set(is_stale OFF)
    foreach(input IN LISTS inputs ITEMS "${repo}/reference/${stem}.json")
      set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${input}")
      if(NOT EXISTS "${file}" OR "${input}" IS_NEWER_THAN "${file}")
        set(is_stale ON)
      endif()
    endforeach()
    if(is_stale)
      list(APPEND stale "${stem}")
    endif()
  endforeach()
  set(${out} "${made}" PARENT_SCOPE)
  if(NOT stale)
    return()
  endif()
  # Debian's python3 (numpy from python3-numpy) first, then the one on PATH.
  find_program(WAFER_SYNTH_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
  find_program(WAFER_SYNTH_PYTHON3_PATH NAMES python3)
  set(python "")
  foreach(candidate IN ITEMS "${WAFER_SYNTH_PYTHON3}" "${WAFER_SYNTH_PYTHON3_PATH}")
    if(candidate)
      execute_process(COMMAND "${candidate}" -c "import numpy" RESULT_VARIABLE no_numpy OUTPUT_QUIET ERROR_QUIET)
      if(NOT no_numpy)
        set(python "${candidate}")
        break()
      endif()
    endif()
  endforeach()
  list(JOIN stale ", " names)
  if(NOT python)
    message(FATAL_ERROR "The reference models ${names} are generated at configure time (they are neither in "
      "tests/data nor in WAFER_SHARED_TESTDATA_DIR=${WAFER_SHARED_TESTDATA_DIR}), and that needs Python 3 "
      "with numpy: run scripts/setup.sh (it installs python3-numpy), or configure with -DWAFER_BUILD_TESTS=OFF.")
  endif()
  message(STATUS "Generating the reference models ${names} (tools/reference/synth_models.py)")
  execute_process(COMMAND "${python}" "${tool}/synth_models.py" "${repo}" "${dir}" ${stale}
                  RESULT_VARIABLE failed ERROR_VARIABLE why)
  if(failed)
    message(FATAL_ERROR "tools/reference/synth_models.py could not make ${names}:\n${why}")
  endif()
endfunction()
