# SPDX-License-Identifier: Apache-2.0
# Fails if a static library references anything a freestanding runtime must not use: the heap,
# C++ exception/RTTI/guard support (__cxa_*), unwinding, libm, or stdio/abort.
#   cmake -DNM=<nm> -DLIBRARY=<archive> -P check_symbols.cmake
if(NOT NM OR NOT LIBRARY)
  message(FATAL_ERROR "usage: cmake -DNM=<nm> -DLIBRARY=<archive> -P check_symbols.cmake")
endif()
execute_process(COMMAND ${NM} -u ${LIBRARY} OUTPUT_VARIABLE listing RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${LIBRARY}")
endif()

set(heap "malloc|calloc|realloc|free|aligned_alloc|posix_memalign|memalign")
set(cxx_runtime "_Zn[wa][jmy].*|_Zd[la]Pv.*|__cxa_.*|__gxx_personality_.*|_Unwind_.*|_ZTI.*|_ZTV.*")
set(libm "(exp|exp2|expm1|log|log2|log10|log1p|sqrt|cbrt|pow|erf|erfc|tgamma|lgamma|sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|fabs|floor|ceil|round|lround|trunc|fmod|ldexp|frexp|modf|hypot|fmin|fmax|nan)[fl]?")
set(stdio "printf|fprintf|sprintf|snprintf|puts|fputs|putchar|fwrite|abort|exit|__assert_fail|__stack_chk_fail_never")
set(forbidden "^(${heap}|${cxx_runtime}|${libm}|${stdio})$")

string(REPLACE "\n" ";" lines "${listing}")
set(found "")
foreach(line IN LISTS lines)
  string(STRIP "${line}" line)
  # "                 U symbol" -> "symbol"; archive member headers ("x.o:") are skipped.
  if(line MATCHES "^U ([^ ]+)$")
    set(symbol "${CMAKE_MATCH_1}")
    if(symbol MATCHES "${forbidden}")
      list(APPEND found "${symbol}")
    endif()
  endif()
endforeach()
list(REMOVE_DUPLICATES found)
if(found)
  list(JOIN found ", " found_text)
  message(FATAL_ERROR "${LIBRARY} references forbidden symbols: ${found_text}")
endif()
message(STATUS "${LIBRARY}: no heap, C++ runtime, libm or stdio references")
