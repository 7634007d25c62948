"""Pure functions over numbers; every result carries the parameters it used."""
