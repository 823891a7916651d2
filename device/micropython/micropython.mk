# aioprof as a MicroPython user C module, for ports built with make (unix, stm32, ...):
#   make -C ports/unix USER_C_MODULES=/path/to/aioprof-top/device/micropython
# (MicroPython 1.28 and older look one level down only: USER_C_MODULES=/path/to/aioprof-top/device.)
# The module _aioprof links the device library of this repository; aioprof.py is its front end.
AIOPROF_MOD_DIR := $(USERMOD_DIR)
AIOPROF_TOP := $(abspath $(AIOPROF_MOD_DIR)/../..)

SRC_USERMOD_C += $(AIOPROF_MOD_DIR)/modaioprof.c

# the device library: not scanned for qstrs
SRC_USERMOD_LIB_C += \
	$(AIOPROF_TOP)/device/aioprof.c \
	$(AIOPROF_TOP)/proto/aioprof_frame_writer.c \
	$(AIOPROF_TOP)/proto/aioprof_crc16.c \
	$(AIOPROF_TOP)/proto/aioprof_varint.c

CFLAGS_USERMOD += -I$(AIOPROF_TOP)/device -I$(AIOPROF_TOP)/proto -I$(AIOPROF_MOD_DIR)
# the port bound at compile time: the clock read in place (aioprof_mp_port.h)
CFLAGS_USERMOD += -DAIOPROF_PORT_HEADER=\"aioprof_mp_port.h\"
