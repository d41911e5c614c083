# One part of a trace made of independent parts: the trace on stdin with
# its threads and variables renamed p + name, its header and comments left
# out, so that parts written one after the other share nothing.
# Usage: vsc gen ... | awk -v p=p0_ -f parts.awk >> FILE
$1 == "vsc" || /^[ \t]*(#|$)/ { next }
$1 == "init" { $2 = p $2; print; next }
{ $1 = p $1; $3 = p $3; print }
