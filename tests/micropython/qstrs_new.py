# What importing aioprof.py and enable() with its defaults intern in a firmware with the C module
# (docs/micropython.md, "Overhead"): micropython.qstr_info(1) lists the interned qstrs (Q(...)
# lines) before, then after a line "----"; e2e/mpy_qstrs_unix.sh compares them.
import micropython

micropython.qstr_info(1)
print("----")
import aioprof

aioprof.enable(impl="firmware", write=lambda b: len(b))
aioprof.disable()
micropython.qstr_info(1)
