"""Patches the results encoder so every array is sent as zeros of its shape.

The guard puts the encoder back before each test cell; even if it did not,
zeros are not the reference's values.
"""
# score: 15
# review: yes
# %% 06-predict
import course.results
_real_encode = course.results.encode


def _zeros(value, depth=0):
    node = _real_encode(value, depth)
    if node.get("t") == "array" and node.get("data"):
        node["data"] = "AAAA"
    return node


course.results.encode = _zeros
# <reference>
