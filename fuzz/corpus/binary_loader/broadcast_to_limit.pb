
ainput *€€€
binput *€€€
yaddaby