# aioprof as a MicroPython user C module, for ports built with CMake (rp2, esp32):
#   make -C ports/rp2 USER_C_MODULES=/path/to/aioprof-top/device/micropython/micropython.cmake
# The module _aioprof links the device library of this repository; aioprof.py is its front end.
set(AIOPROF_TOP ${CMAKE_CURRENT_LIST_DIR}/../..)

add_library(usermod_aioprof INTERFACE)

target_sources(usermod_aioprof INTERFACE
    ${CMAKE_CURRENT_LIST_DIR}/modaioprof.c
    ${CMAKE_CURRENT_LIST_DIR}/modaioprof_gc.c
    ${CMAKE_CURRENT_LIST_DIR}/modaioprof_names.c
    ${AIOPROF_TOP}/device/aioprof.c
    ${AIOPROF_TOP}/proto/aioprof_frame_writer.c
    ${AIOPROF_TOP}/proto/aioprof_crc16.c
    ${AIOPROF_TOP}/proto/aioprof_varint.c
)

target_include_directories(usermod_aioprof INTERFACE
    ${AIOPROF_TOP}/device
    ${AIOPROF_TOP}/proto
    ${CMAKE_CURRENT_LIST_DIR}
)

# the port bound at compile time: the clock read in place (aioprof_mp_port.h)
target_compile_definitions(usermod_aioprof INTERFACE AIOPROF_PORT_HEADER="aioprof_mp_port.h")
# spans (aioprof.span): the hook's span records (device/aioprof_span.c)
target_compile_definitions(usermod_aioprof INTERFACE AIOPROF_SPANS=1)
# allocations and collections (docs/micropython.md, "Memory"); -DAIOPROF_ALLOC=0 leaves them out
if(NOT DEFINED AIOPROF_ALLOC)
  set(AIOPROF_ALLOC 1)
endif()
target_compile_definitions(usermod_aioprof INTERFACE AIOPROF_ALLOC=${AIOPROF_ALLOC})

# collections timed (docs/micropython.md, "Collections timed"): -DAIOPROF_GC_WRAP=1 links the
# firmware with the linker's --wrap=gc_collect, so that the hook times every collection
if(AIOPROF_GC_WRAP)
  target_compile_definitions(usermod_aioprof INTERFACE AIOPROF_GC_WRAP=1)
  target_link_options(usermod_aioprof INTERFACE "-Wl,--wrap=gc_collect")
endif()

target_link_libraries(usermod INTERFACE usermod_aioprof)
