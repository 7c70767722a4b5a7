# Where the package finds libpenlim: the installer (scripts/install-python) writes the absolute path of
# the library it installs with here.  None in the source tree: PENLIM_LIBRARY names it (the tests set it
# to the build tree's).
LIBRARY = None
# The version of penlim this package belongs to: the library's pl_version() must be the same.
VERSION = "0.2.0"
