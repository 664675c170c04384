# Cuda.cmake - the optional GPU part (issue 7, docs/gpu.md).
#
# SYMHEAP_CUDA=ON (default) enables it when a CUDA compiler is found
# (CheckLanguage); without one the library builds exactly as before and the
# GPU heap reports "built without CUDA" when asked for.  Even with CUDA,
# libsymheap links no CUDA library: it uses the toolkit's cuda.h for the
# driver API's types and dlopens libcuda.so.1 at run time, so it runs on
# machines with no driver.  Only the GPU tests and benchmarks link the CUDA
# runtime.  Result: SYMHEAP_HAVE_CUDA (ON/OFF).
option(SYMHEAP_CUDA "GPU symmetric heap and device API, when a CUDA toolkit is found" ON)
set(SYMHEAP_HAVE_CUDA OFF)
if(SYMHEAP_CUDA)
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90) # Hopper (H100/H200); override on the command line
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(SYMHEAP_HAVE_CUDA ON)
    message(STATUS "symheap: GPU heap on (CUDA ${CUDAToolkit_VERSION}, arch ${CMAKE_CUDA_ARCHITECTURES})")
  else()
    message(STATUS "symheap: no CUDA compiler found: GPU heap, GPU tests and benchmarks off")
  endif()
endif()
