# bash completion for ovtrace (installed as share/bash-completion/completions/ovtrace).
# Options per subcommand; a trailing '=' marks an option that takes a value. The lists
# are checked against each command's --help by tests/install/options.py, so they
# cannot drift.

_ovtrace_input_opts='--comm= --not-comm= --comm-stream= --rules= --threads= -q --quiet
  --cache --no-cache -v --verbose --max-token= -h --help'
_ovtrace_sim_opts='--simulate --workload= --mode= --comm-sms= --tokens= --layers= --experts=
  --topk= --hidden= --link= --tflops= --seed= --jitter= --speed= --steps= --device= --gpus=
  --ranks= --imbalance= --clock-skew= --batching= --rate= --min-batch= --max-batch=
  --mem-cap= --prompt-tokens= --out-tokens= -h --help'

_ovtrace_opts() { # COMMAND: its options
    case $1 in
    view) echo "--range= --ascii --osc52 --color= --lazy= --align= --step= --dump --frames= --keys= --size=
                $_ovtrace_input_opts" ;;
    stats) echo "--json --range= --rank= --device= --stream= --top= --summary= $_ovtrace_input_opts" ;;
    diff) echo "--json --group-names --step= --top= --a= --b= $_ovtrace_input_opts" ;;
    query) echo "-c= --command= --csv --json $_ovtrace_input_opts" ;;
    export) echo "-o= --output= --merge --range= --rank= --device= --stream= --name= --exclude=
                  --class= --min-dur= --with-launches --clip $_ovtrace_input_opts" ;;
    live) echo "--retention= -o= --output= --headless --duration= --interval= --window= $_ovtrace_sim_opts" ;;
    record) echo "-o= --output= --duration= --retention= $_ovtrace_sim_opts" ;;
    workload) echo "--mode= --comm-sms= --steps= --warmup= --tokens= --layers= --experts= --topk=
                    --hidden= --link= --tflops= --imbalance= --gpus= --device= --json --rate=
                    --batching= --mem-cap= --min-batch= --max-batch= --prompt-tokens=
                    --out-tokens= -h --help" ;;
    esac
}

# Trace files (*.json, *.json.gz, *.json.zst, Nsight Systems *.sqlite) and directories.
_ovtrace_traces() {
    local IFS=$'\n' f
    compopt -o filenames 2>/dev/null
    for f in $(compgen -d -- "$1"); do COMPREPLY+=("$f"); done
    for f in $(compgen -f -- "$1"); do
        case $f in *.json | *.json.gz | *.json.zst | *.sqlite) [ -d "$f" ] || COMPREPLY+=("$f") ;; esac
    done
}

# Values of the option OPT for the word CUR; returns 1 when OPT takes no value.
_ovtrace_values() {
    local opt=$1 cur=$2 words=
    case $opt in
    --color) words='auto 256 16 none' ;;
    --align) words='start step' ;;
    --lazy) words='auto on off' ;;
    --mode) words='prefill decode serial serve' ;;
    --link) words='nvlink ib' ;;
    --batching) words='dynamic fixed' ;;
    --workload) words='moe' ;;
    --class) words='compute comm memory sync cpu annotation other' ;;
    --rules | --a | --b)
        compopt -o filenames 2>/dev/null
        local IFS=$'\n'
        COMPREPLY=($(compgen -f -- "$cur"))
        return 0
        ;;
    -o | --output | --summary)
        compopt -o filenames 2>/dev/null
        local IFS=$'\n'
        COMPREPLY=($(compgen -f -- "$cur"))
        return 0
        ;;
    *) return 0 ;; # a number, a time, a regex: nothing to offer
    esac
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
}

_ovtrace() {
    COMPREPLY=()
    local cword=$COMP_CWORD cur=${COMP_WORDS[COMP_CWORD]}
    local -a words=("${COMP_WORDS[@]}")
    local cmd= i opts o
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
        view | stats | diff | export | query | live | record | workload | help) cmd=${words[i]}; break ;;
        -*) ;;
        *) cmd=view; break ;; # ovtrace FILE... means view
        esac
    done
    if [ -z "$cmd" ]; then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W '--help --version' -- "$cur"))
        else
            COMPREPLY=($(compgen -W 'view stats diff export query live record workload help' -- "$cur"))
            _ovtrace_traces "$cur"
        fi
        return 0
    fi
    if [ "$cmd" = help ]; then
        COMPREPLY=($(compgen -W 'view stats diff export query live record workload' -- "$cur"))
        return 0
    fi
    # after '--' (live, record): a command and its arguments
    for ((i = 2; i < cword; i++)); do
        if [ "${words[i]}" = -- ]; then
            if ((i == cword - 1)); then
                COMPREPLY=($(compgen -c -- "$cur"))
            else
                compopt -o default 2>/dev/null
            fi
            return 0
        fi
    done
    opts=$(_ovtrace_opts "$cmd")
    # the value of an option: "--opt VALUE", or "--opt=VALUE" (split at '=' by bash)
    local prev=${words[cword - 1]}
    if [ "$cur" = = ]; then
        _ovtrace_values "$prev" ""
        return 0
    elif [ "$prev" = = ]; then
        _ovtrace_values "${words[cword - 2]}" "$cur"
        return 0
    fi
    if [[ $cur == --*=* ]]; then
        _ovtrace_values "${cur%%=*}" "${cur#*=}"
        return 0
    fi
    for o in $opts; do
        if [ "$o" = "$prev=" ]; then
            _ovtrace_values "$prev" "$cur"
            return 0
        fi
    done
    if [[ $cur == -* ]]; then
        local names=
        for o in $opts; do names+=" ${o%=}"; done
        COMPREPLY=($(compgen -W "$names" -- "$cur"))
        return 0
    fi
    case $cmd in
    view | stats | diff | export | query) _ovtrace_traces "$cur" ;;
    *) ;;
    esac
    return 0
}
complete -F _ovtrace ovtrace
