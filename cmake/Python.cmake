# Python.cmake - the CPython extension module `symheap` (python/, issue 18):
# built when Python 3's headers and NumPy's are found.  The interpreter is
# Debian's /usr/bin/python3 when it exists (scripts/setup.sh installs
# python3-dev, python3-numpy and python3-pytest for it); another one (a
# pyenv or venv python3 first on PATH, often without NumPy) is used only when
# given: -DPython3_EXECUTABLE=/path/to/python3.
#
# Not in sanitizer builds: python3 would have to preload the sanitizer runtime
# before libsymheap; the module's tests run in the plain build.
# Sets SYMHEAP_HAVE_PYTHON and SYMHEAP_PYTHON_WHY (why not, for symheap-info and
# the skipped test).
option(SYMHEAP_PYTHON "Build the Python module (python/) when Python 3 and NumPy headers are found" ON)
set(SYMHEAP_HAVE_PYTHON OFF)
set(SYMHEAP_PYTHON_WHY "")
if(NOT SYMHEAP_PYTHON)
  set(SYMHEAP_PYTHON_WHY "-DSYMHEAP_PYTHON=OFF")
elseif(SYMHEAP_SANITIZE OR SYMHEAP_TSAN)
  set(SYMHEAP_PYTHON_WHY "not in sanitizer builds (python3 cannot load a sanitized libsymheap without preloading the runtime), the plain build has it")
else()
  if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "The Python 3 the module is built for (Debian's by default)")
  endif()
  find_package(Python3 COMPONENTS Interpreter Development.Module NumPy)
  if(Python3_FOUND AND Python3_NumPy_FOUND AND Python3_Development.Module_FOUND)
    set(SYMHEAP_HAVE_PYTHON ON)
  else()
    set(SYMHEAP_PYTHON_WHY "Python 3 headers or NumPy not found for ${Python3_EXECUTABLE} (on Debian: apt-get install python3-dev python3-numpy, or scripts/setup.sh)")
    message(STATUS "symheap: no Python module: ${SYMHEAP_PYTHON_WHY}")
  endif()
endif()
