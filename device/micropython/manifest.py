# Freezes aioprof's Python files into a firmware. Include it from the manifest you build with,
# after the port's own, e.g.:
#   include("$(PORT_DIR)/boards/manifest.py")   # unix: $(PORT_DIR)/variants/standard/manifest.py
#   include("/path/to/aioprof-top/device/micropython/manifest.py")
# and build with FROZEN_MANIFEST=/path/to/that/manifest.py (docs/micropython.md).
module("aioprof.py")
module("aioprof_fallback.py")
module("aioprof_frames.py")
module("aioprof_wrapper.py")
