# An IR file that does not exist.
$MESHTEST_OPT --pass=verify g.mtir
