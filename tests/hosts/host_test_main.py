"""Shared main for the real-client tests: runs the module's tests and exits 77 (ctest's SKIP_RETURN_CODE)
when every test was skipped, so a machine without the host binaries shows the tests as skipped, with
the reason printed, instead of passed."""
import sys
import unittest


def main(module_name="__main__"):
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[module_name])
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    if not result.wasSuccessful():
        sys.exit(1)
    if result.testsRun > 0 and len(result.skipped) == result.testsRun:
        for _, reason in result.skipped[:1]:
            print("SKIPPED: " + reason)
        sys.exit(77)
    sys.exit(0)
