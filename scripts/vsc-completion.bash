# bash completion for vsc. Installed as
# $(PREFIX)/share/bash-completion/completions/vsc; to try it from the source
# tree: source scripts/vsc-completion.bash
#
# Commands and options are read from `vsc --help` and `vsc COMMAND --help`,
# so the completion follows whatever this build of vsc has.
# shellcheck disable=SC2207  # COMPREPLY=($(compgen ...)) is the idiom here

_vsc_commands()
{
	"$1" --help 2>/dev/null |
		sed -n '/^commands:/,/^$/{s/^  \([a-z][a-z0-9-]*\) .*/\1/p}'
}

_vsc_options()
{
	"$1" "$2" --help 2>/dev/null | grep -o -- '--[a-z][a-z0-9-]*\|^ *-[a-zA-Z]' |
		sed 's/^ *//' | sort -u
}

# The families of `vsc gen`, from the "families:" list of its --help.
_vsc_gen_families()
{
	"$1" gen --help 2>/dev/null |
		sed -n '/^families:/,/^[^ ]/{s/^  \([a-z][a-z0-9-]*\) .*/\1/p}'
}

_vsc()
{
	local cur prev words cword
	if declare -F _init_completion >/dev/null; then
		_init_completion || return
	else
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD - 1]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	fi
	local vsc=${words[0]}

	if [[ $cword -eq 1 ]]; then
		COMPREPLY=($(compgen -W "$(_vsc_commands "$vsc") --help --version" -- "$cur"))
		return
	fi
	local cmd=${words[1]}

	# Options that take an argument that is not a trace file.
	case $prev in
	-p | --preemptions | --timeout | --seed | --duration | --ring-size | --pid | -j | --jobs | \
		-w | --watch)
		return
		;;
	--stop-command)
		COMPREPLY=($(compgen -W "TERM INT KILL HUP QUIT USR1 USR2" -- "$cur"))
		return
		;;
	--watch-by)
		COMPREPLY=($(compgen -W "breakpoints pages" -- "$cur"))
		return
		;;
	--solver)
		local solvers
		solvers=$("$vsc" check --help 2>/dev/null | sed -n 's/.*--solver NAME.*one of: *//p')
		COMPREPLY=($(compgen -W "$solvers" -- "$cur"))
		return
		;;
	-o | --output | --svg | --core-out | --html)
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	esac

	if [[ $cmd == gen ]]; then
		if [[ $cword -eq 2 ]]; then
			COMPREPLY=($(compgen -W "$(_vsc_gen_families "$vsc")" -- "$cur"))
			return
		fi
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$("$vsc" gen "${words[2]}" --help 2>/dev/null |
				grep -o -- '--[a-z][a-z0-9-]*' | sort -u) -o" -- "$cur"))
			return
		fi
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_vsc_options "$vsc" "$cmd")" -- "$cur"))
		return
	fi
	case $cmd in
	check)
		COMPREPLY=($(compgen -f -X '!*.vsc' -- "$cur") $(compgen -d -- "$cur"))
		;;
	convert)
		COMPREPLY=($(compgen -d -- "$cur"))
		;;
	*)
		COMPREPLY=($(compgen -f -- "$cur"))
		;;
	esac
}
complete -F _vsc -o filenames vsc
