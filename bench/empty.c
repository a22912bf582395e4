/* The cheapest process there is, linked like doberman-guard and doberman-hook (static PIE): the
 * reference the service's client is measured against in bench/run. */
int main(void) { return 0; }
