" surehand as an ALE linter: the configuration of docs/editors/vim-ale.md.
" The test sets g:surehand_executable, g:surehand_command and
" g:surehand_settings before sourcing it (a user writes the values in).
packadd! ale

call ale#linter#Define('python', {
\   'name': 'surehand',
\   'lsp': 'stdio',
\   'executable': get(g:, 'surehand_executable', 'surehand'),
\   'command': get(g:, 'surehand_command', '%e serve'),
\   'project_root': {buffer -> fnamemodify(
\       substitute(ale#path#FindNearestDirectory(buffer, '.git'), '/$', '', ''), ':h')},
\   'initialization_options': get(g:, 'surehand_settings', {}),
\})
let g:ale_linters = {'python': ['surehand']}
" Show every window/showMessage (ALE's default shows errors only).
let g:ale_lsp_show_message_severity = 'information'

" The server's answer to the last command (an ask answers {"outcome": "started", ...}
" at once; the proposal comes as diagnostics); an error is echoed.
function! s:Answered(response) abort
    let g:surehand_answer = a:response
    if has_key(a:response, 'error')
        echoerr 'surehand: ' . get(a:response.error, 'message', '')
    endif
endfunction

function! s:Send(command, arguments) abort
    call ale#lsp_linter#SendRequest(bufnr(''), 'surehand',
    \   ale#lsp#message#ExecuteCommand(a:command, a:arguments), function('s:Answered'))
endfunction

" :SurehandAsk {task}  asks about the current file.
command! -nargs=1 SurehandAsk call s:Send('surehand.ask',
\   [{'task': <q-args>, 'uri': ale#path#ToFileURI(expand('%:p'))}])
command! SurehandCancel call s:Send('surehand.cancel', [])
command! SurehandUndo call s:Send('surehand.undo', [])
