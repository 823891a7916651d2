# aioprof as a MicroPython user C module, for ports built with make (unix, stm32, ...):
#   make -C ports/unix PROG=micropython-aioprof USER_C_MODULES=/path/to/aioprof-top/device/micropython
# (MicroPython 1.28 and older look one level down only: USER_C_MODULES=/path/to/aioprof-top/device.)
# The module _aioprof links the device library of this repository; aioprof.py is its front end.
AIOPROF_MOD_DIR := $(USERMOD_DIR)
AIOPROF_TOP := $(abspath $(AIOPROF_MOD_DIR)/../..)

# MicroPython 1.29 puts a module's objects in $(BUILD)/<its directory's name>/, here
# $(BUILD)/micropython/: on the unix port that is where the program goes, and ld fails at the end
# (a mingw build's program is micropython.exe)
ifneq ($(filter $(AIOPROF_MOD_DIR),$(USERMOD_DIRS)),)
ifeq ($(PROG),$(notdir $(AIOPROF_MOD_DIR)))
ifeq ($(findstring mingw,$(shell $(CC) -dumpmachine)),)
$(error aioprof: the program's name $(PROG) is also the module's object folder in $(BUILD): give the program another, e.g. PROG=micropython-aioprof)
endif
endif
endif

SRC_USERMOD_C += $(AIOPROF_MOD_DIR)/modaioprof.c $(AIOPROF_MOD_DIR)/modaioprof_gc.c $(AIOPROF_MOD_DIR)/modaioprof_names.c

# the device library: not scanned for qstrs
SRC_USERMOD_LIB_C += \
	$(AIOPROF_TOP)/device/aioprof.c \
	$(AIOPROF_TOP)/proto/aioprof_frame_writer.c \
	$(AIOPROF_TOP)/proto/aioprof_crc16.c \
	$(AIOPROF_TOP)/proto/aioprof_varint.c

CFLAGS_USERMOD += -I$(AIOPROF_TOP)/device -I$(AIOPROF_TOP)/proto -I$(AIOPROF_MOD_DIR)
# the port bound at compile time: the clock read in place (aioprof_mp_port.h)
CFLAGS_USERMOD += -DAIOPROF_PORT_HEADER=\"aioprof_mp_port.h\"
# spans (aioprof.span): the hook's span records (device/aioprof_span.c)
CFLAGS_USERMOD += -DAIOPROF_SPANS=1
# allocations and collections (docs/micropython.md, "Memory"): AIOPROF_ALLOC=0 on the make line
# builds the hook without them (what it costs: make bench, part mpy)
AIOPROF_ALLOC ?= 1
CFLAGS_USERMOD += -DAIOPROF_ALLOC=$(AIOPROF_ALLOC)
# collections timed (docs/micropython.md, "Collections timed"): AIOPROF_GC_WRAP=1 on the make line
# links the firmware with the linker's --wrap=gc_collect, so that the hook times every collection.
# AIOPROF_GC_WRAP_LDFLAGS is how the port's link line says it: -Wl,... where the compiler links
# (unix, stm32, ...), --wrap=gc_collect where ld itself does (the qemu port)
AIOPROF_GC_WRAP ?= 0
AIOPROF_GC_WRAP_LDFLAGS ?= -Wl,--wrap=gc_collect
ifeq ($(AIOPROF_GC_WRAP),1)
CFLAGS_USERMOD += -DAIOPROF_GC_WRAP=1
LDFLAGS_USERMOD += $(AIOPROF_GC_WRAP_LDFLAGS)
endif
# the hook's files run at every task switch: AIOPROF_OPT is their optimisation, after the port's own
# (-Os on most; the last -O given wins); AIOPROF_OPT= builds them as the rest of the firmware
AIOPROF_OPT ?= -O2
%/modaioprof.o %/aioprof.o %/aioprof_frame_writer.o %/aioprof_crc16.o %/aioprof_varint.o: CFLAGS += $(AIOPROF_OPT)
