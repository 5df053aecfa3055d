# A loader plugin built against another SDK version.
$MESHTEST collect --models-root $FIXTURES -k wrong_abi
