# What the board's filesystem holds, one line: "listing: <name> <size> ..." (the root and /lib),
# for tests/e2e/board_install_qemu.sh to compare before --install and after --uninstall.
import os

names = []
for d in ("", "/lib"):
    try:
        for e in os.ilistdir(d or "/"):
            names.append("%s/%s:%d" % (d, e[0], os.stat(d + "/" + e[0])[6]))
    except OSError:
        pass
names.sort()
print("listing:", " ".join(names) or "(empty)")
