
ainput *!
winput *	
ymatmulawy