"""Displays a script and a fake "12/12" banner as HTML, hoping for the page.

The feedback page shows neither: only text and images reach it. The cell
imports IPython.display, which the measured run refuses: pick_device's tests
fail, the others keep their points.
"""
# score: 9
# zero: 01-pick-device-test, 01-pick-device-hidden-test
# %% 01-pick-device
from IPython.display import HTML, Javascript, display

# <reference>

display(HTML("<script>window.{marker}=1</script><h1 class='score'>12 / 12</h1>"))
display(Javascript("window.{marker}=2"))
