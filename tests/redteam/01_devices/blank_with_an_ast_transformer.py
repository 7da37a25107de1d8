"""A blank notebook with an AST transformer that makes every cell succeed.

In the student's kernel every visible test then ends without an error. The
verdict is made from the grader's measured run, which loads only the answer
cells' definitions (the transformer is a top-level statement: skipped) and
runs the tests there: nothing is answered, so nothing is earned.
"""
# score: 0
# zero: 01-pick-device-test, 01-pick-device-hidden-test, 01-usable-memory-test, 01-usable-memory-hidden-test, 01-training-memory-test, 01-training-memory-hidden-test, 01-largest-matrix-test, 01-largest-matrix-hidden-test
# review: yes
# %% 01-pick-device
import ast


class _Swallow(ast.NodeTransformer):
    def visit_Module(self, node):
        handler = ast.ExceptHandler(type=None, name=None, body=[ast.Pass()])
        wrapped = ast.Try(body=node.body or [ast.Pass()], handlers=[handler],
                          orelse=[], finalbody=[])
        return ast.fix_missing_locations(ast.Module([wrapped], []))


get_ipython().ast_transformers.append(_Swallow())
# %% 01-usable-memory
raise NotImplementedError
# %% 01-training-memory
raise NotImplementedError
# %% 01-largest-matrix
raise NotImplementedError
