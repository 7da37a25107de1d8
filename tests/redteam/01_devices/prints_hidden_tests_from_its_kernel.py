"""A correct answer whose top-level statements look for hidden tests in the
kernel (IPython's history, `linecache`, every module's globals) and print
what they find, with `{marker}` so the test can look for it on the page.

The kernel never holds a test's source or a nonce (the tests run in the
referee): nothing is found, the page holds no hidden test, full marks.
"""
# score: 12
# review: yes
# %% 01-pick-device
import linecache
import sys

# <reference>

_found = []
for _lines in list(linecache.cache.values()):
    _text = "".join(_lines[2]) if len(_lines) > 2 else ""
    if "HIDDEN" in _text or "submit(" in _text or "nonce" in _text:
        _found.append(_text)
_shell = sys.modules.get("IPython") and sys.modules["IPython"].get_ipython()
for _cell in (_shell.user_ns.get("In", []) if _shell else []):
    if "submit(" in _cell or "HIDDEN" in _cell:
        _found.append(_cell)
print("FOUND", len(_found), "\n".join(_found))
