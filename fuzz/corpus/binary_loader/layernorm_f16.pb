
xinput *`
ginput *`
epsconstant 1ñhãˆµøä>
mureduce_meanx:@
dsubxmu
sqmuldd
varreduce_meansq:@
veaddvareps
rrsqrtve
nmuldr
ymulngymu