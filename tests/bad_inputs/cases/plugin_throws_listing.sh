# A loader whose variants() throws.
$MESHTEST collect --models-root $FIXTURES -k throws_listing
