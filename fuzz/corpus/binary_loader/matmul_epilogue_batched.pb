
ainput *dH
winput *H(
biasinput *(
cmatmulaw
baddcbias
yrelubyc