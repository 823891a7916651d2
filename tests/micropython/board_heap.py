# The board's free heap, one line: "heap: <bytes free>" (after a collection), for
# tests/e2e/board_install_qemu.sh to skip on a firmware whose heap can not hold the RAM
# filesystem's files and the import of aioprof beside them.
import gc

gc.collect()
print("heap:", gc.mem_free())
