;;; lsp_mode_review.el --- surehand's review in Emacs with lsp-mode, in batch mode  -*- lexical-binding: t -*-
;;
;;   emacs --batch -q -l tests/emacs/lsp_mode_review.el SPEC.json
;;
;; Registers surehand as an lsp-mode client (the configuration of
;; docs/editors/emacs-lsp-mode.md), visits `file' with lsp-mode managing it,
;; then takes each step of `steps' in turn, as the user would:
;;
;;   {do: "ask", file, task}          `surehand-ask' (the documented command: a
;;                                     workspace/executeCommand surehand.ask)
;;   {do: "open", file}               visit a file
;;   {do: "type", file, line, text}   insert TEXT at the start of LINE (0-based)
;;   {do: "action", file, line, title} the code actions on LINE
;;                                     (`lsp-code-actions-at-point'), the one
;;                                     whose title starts with TITLE executed
;;                                     (`lsp-execute-code-action')
;;   {do: "command", command}         a workspace/executeCommand with no arguments
;;
;; After a step it waits until `until' holds (every key optional):
;;   lines: {FILE: [LINE...]}  the lines of surehand's diagnostics in FILE
;;   message: TEXT             a message containing TEXT in *Messages*
;;   settle: SECONDS           (first) let SECONDS pass
;; then records what the user has: each project buffer's text and modified
;; flag, each project file on disk, surehand's diagnostics per file and what
;; flymake shows for them, the code actions offered, the answer, and the
;; messages shown since the last step (surehand's window/showMessage, which
;; lsp-mode writes to the echo area and *Messages* as `LSP :: ...').  Every wait
;; is bounded; an error is recorded (with what was seen so far) in `result'.
;;
;; SPEC.json: {cmd: [...], settings: {...}, root, file, steps: [...], result}

(require 'lsp-mode)
(require 'json)
(require 'cl-lib)
(require 'flymake)
(require 'lsp-diagnostics)

(defvar surehand-seen-messages 0 "How many of *Messages*' lines a step has reported.")

;;; The configuration of docs/editors/emacs-lsp-mode.md (the command and
;;; settings are the spec's).

(defun surehand-register (cmd settings)
  (lsp-register-client
   (make-lsp-client
    :new-connection (lsp-stdio-connection cmd)
    :major-modes '(python-mode)
    :server-id 'surehand
    :add-on? t
    :initialization-options settings))
  (add-hook 'python-mode-hook #'lsp))


(defun surehand-ask (task)
  "Ask surehand for TASK about the current file."
  (interactive "sTask: ")
  (lsp-send-execute-command "surehand.ask"
                            (vector (list :task task :uri (lsp--buffer-uri)))))

;;; The run.

(defvar surehand-root nil)

(defun surehand-object (alist)
  "ALIST as a JSON object (an empty one when nil)."
  (or alist (make-hash-table)))

(defun surehand-wait (what check &optional seconds)
  "Let the server and timers run until CHECK gives non-nil; error after SECONDS.
Batch Emacs is never idle, so the idle timers run here as they would while the
user pauses."
  (let ((deadline (+ (float-time) (or seconds 30))))
    (while (not (funcall check))
      (when (> (float-time) deadline)
        (error "Timed out waiting for %s" what))
      (accept-process-output nil 0.05)
      (dolist (timer (copy-sequence timer-idle-list))
        (timer-event-handler timer)))))

(defun surehand-settle (seconds)
  "Let the server and timers run for SECONDS."
  (let ((now (float-time)))
    (surehand-wait "nothing" (lambda () (> (float-time) (+ now seconds))) (+ seconds 5))))

(defun surehand-path (relative)
  (expand-file-name relative surehand-root))

(defun surehand-relative (file)
  (file-relative-name file surehand-root))

(defun surehand-diagnostics (relative)
  "surehand's diagnostics of RELATIVE as lsp-mode holds them: ((LINE . MESSAGE)...)."
  (let ((all (gethash (lsp--fix-path-casing (surehand-path relative)) (lsp-diagnostics))))
    (sort (cl-loop for d in all
                   when (equal (lsp:diagnostic-source? d) "surehand")
                   collect (cons (lsp:position-line (lsp:range-start (lsp:diagnostic-range d)))
                                 (lsp:diagnostic-message d)))
          (lambda (a b) (< (car a) (car b))))))

(defun surehand-all-diagnostics ()
  "FILE -> [[LINE, MESSAGE]...] of every project file with surehand diagnostics."
  (let ((out nil))
    (maphash (lambda (file diagnostics)
               (when (and diagnostics (string-prefix-p surehand-root file))
                 (let ((mine (surehand-diagnostics (surehand-relative file))))
                   (when mine
                     (push (cons (intern (surehand-relative file))
                                 (vconcat (mapcar (lambda (d) (vector (car d) (cdr d))) mine)))
                           out)))))
             (lsp-diagnostics))
    (surehand-object out)))

(defun surehand-flymake ()
  "What flymake shows (echo area, `flymake-show-buffer-diagnostics') in each buffer."
  (let ((out nil))
    (dolist (buffer (buffer-list))
      (with-current-buffer buffer
        (when (and buffer-file-name (bound-and-true-p flymake-mode)
                   (string-prefix-p surehand-root buffer-file-name))
          (let ((shown (cl-loop for d in (sort (flymake-diagnostics)
                                               (lambda (a b) (< (flymake-diagnostic-beg a)
                                                                (flymake-diagnostic-beg b))))
                                collect (format "%d: %s: %s"
                                                (line-number-at-pos (flymake-diagnostic-beg d))
                                                (flymake-diagnostic-type d)
                                                (flymake-diagnostic-text d)))))
            (when shown
              (push (cons (intern (surehand-relative buffer-file-name)) (vconcat shown)) out))))))
    (surehand-object out)))

(defun surehand-lines-hold (wanted)
  "Whether surehand's diagnostics lines are WANTED, a plist (FILE LINES ...)."
  (cl-loop for (file lines) on wanted by #'cddr
           always (equal (mapcar #'car (surehand-diagnostics
                                        (substring (symbol-name file) 1)))
                         lines)))

(defun surehand-messages ()
  (with-current-buffer (messages-buffer)
    (buffer-substring-no-properties (point-min) (point-max))))

(defun surehand-new-messages ()
  "The lines lsp-mode wrote to *Messages* for surehand's window/showMessage since
the last step (`LSP :: surehand...')."
  (let* ((all (split-string (surehand-messages) "\n"))
         (new (nthcdr surehand-seen-messages all)))
    (setq surehand-seen-messages (length all))
    (vconcat (cl-remove-if-not (lambda (line) (string-prefix-p "LSP :: surehand" line)) new))))

(defun surehand-holds (until)
  (and (surehand-lines-hold (plist-get until :lines))
       (or (null (plist-get until :message))
           (string-match-p (regexp-quote (plist-get until :message)) (surehand-messages)))))

(defun surehand-buffers ()
  (let ((out nil))
    (dolist (buffer (buffer-list))
      (with-current-buffer buffer
        (when (and buffer-file-name (string-prefix-p surehand-root buffer-file-name))
          (push (cons (intern (surehand-relative buffer-file-name))
                      (list :text (buffer-substring-no-properties (point-min) (point-max))
                            :modified (if (buffer-modified-p) t :json-false)))
                out))))
    (surehand-object out)))

(defun surehand-disk ()
  (let ((out nil))
    (dolist (file (directory-files-recursively surehand-root ""))
      (unless (string-match-p "/\\.\\|~$\\|#" (surehand-relative file))
        (push (cons (intern (surehand-relative file))
                    (with-temp-buffer (insert-file-contents file) (buffer-string)))
              out)))
    (surehand-object out)))

(defun surehand-visit (relative)
  (find-file (surehand-path relative))
  (unless lsp-mode (lsp))
  (surehand-wait (format "lsp-mode to manage %s" relative)
                 (lambda () (and lsp-mode (lsp-workspaces)
                                 (eq (lsp--workspace-status (car (lsp-workspaces)))
                                     'initialized)))))

(defun surehand-answer (answer)
  "ANSWER of a workspace/executeCommand as JSON; an error when it is none (lsp-mode
reports a failed request as a message and returns its text)."
  (unless (hash-table-p answer)
    (error "No answer: %S" answer))
  answer)

(defun surehand-step (step)
  "Take STEP; what it answered (a string, or an object) or nil."
  (let ((what (plist-get step :do)))
    (cond
     ((equal what "ask")
      (surehand-visit (plist-get step :file))
      (let ((started (float-time))
            (answer (surehand-answer (surehand-ask (plist-get step :task)))))
        (list :outcome (gethash "outcome" answer)
              :seconds (- (float-time) started))))
     ((equal what "open")
      (surehand-visit (plist-get step :file))
      nil)
     ((equal what "type")
      (surehand-visit (plist-get step :file))
      (goto-char (point-min))
      (forward-line (plist-get step :line))
      (insert (plist-get step :text))
      nil)
     ((equal what "action")
      (surehand-visit (plist-get step :file))
      (goto-char (point-min))
      (forward-line (plist-get step :line))
      (let* ((actions (append (lsp-code-actions-at-point) nil))
             (titles (mapcar #'lsp:code-action-title actions))
             (action (cl-find-if (lambda (a) (string-prefix-p (plist-get step :title)
                                                              (lsp:code-action-title a)))
                                 actions)))
        (unless action
          (error "No code action %s at line %s of %s: %S" (plist-get step :title)
                 (plist-get step :line) (plist-get step :file) titles))
        (lsp-execute-code-action action)
        (list :offered (vconcat titles))))
     ((equal what "command")
      (let ((answer (surehand-answer (lsp-send-execute-command (plist-get step :command)))))
        (list :answer (json-serialize answer :null-object nil :false-object :json-false))))
     (t (error "Unknown step %S" step)))))

(defun surehand-run (spec out-cell)
  (let ((cmd (plist-get spec :cmd))
        (settings (plist-get spec :settings))
        (steps (plist-get spec :steps))
        (record nil))
    (setq surehand-root (file-name-as-directory (file-truename (plist-get spec :root))))
    (setq lsp-session-file (expand-file-name "lsp-session" (plist-get spec :home))
          lsp-client-packages nil            ; only surehand's client
          lsp-auto-guess-root nil
          lsp-enable-file-watchers nil
          lsp-keep-workspace-alive nil
          lsp-restart 'ignore
          lsp-headerline-breadcrumb-enable nil
          lsp-modeline-code-actions-enable nil
          lsp-modeline-diagnostics-enable nil
          lsp-modeline-workspace-status-enable nil
          lsp-lens-enable nil
          lsp-enable-snippet nil
          lsp-diagnostics-provider :flymake
          lsp-warn-no-matched-clients nil)
    (surehand-register cmd settings)
    (lsp-workspace-folders-add surehand-root)
    (surehand-visit (plist-get spec :file))
    (dolist (step steps)
      (let* ((answer (condition-case err
                         (surehand-step step)
                       (error (list :error (error-message-string err)))))
             (until (plist-get step :until)))
        (when (plist-get until :settle)
          (surehand-settle (plist-get until :settle)))
        (unless (plist-get answer :error)
          (condition-case err
              (surehand-wait (format "%S after %S" until step)
                             (lambda () (surehand-holds until)) (or (plist-get step :seconds) 30))
            (error (setq answer (plist-put answer :error (error-message-string err))))))
        (push (list :step (plist-get step :do)
                    :answer (surehand-object answer)
                    :diagnostics (surehand-all-diagnostics)
                    :flymake (surehand-flymake)
                    :buffers (surehand-buffers)
                    :disk (surehand-disk)
                    :shown (surehand-new-messages))
              record)
        (setcar out-cell (list :record (vconcat (reverse record))))
        (when (plist-get answer :error)
          (error "Step %S: %s" step (plist-get answer :error)))))
    (setcar out-cell (list :record (vconcat (reverse record))
                           :log (let ((log (get-buffer "*lsp-log*")))
                                  (if log (with-current-buffer log (buffer-string)) ""))))
    (ignore-errors (lsp-workspace-shutdown (car (lsp-workspaces))))))

(let* ((spec-file (car command-line-args-left))
       (spec (with-temp-buffer
               (insert-file-contents spec-file)
               (json-parse-buffer :object-type 'plist :array-type 'list
                                  :null-object nil :false-object :json-false)))
       (out-cell (list nil))
       (failed (condition-case err
                   (progn (surehand-run spec out-cell) nil)
                 (error (format "%s" (error-message-string err))))))
  (with-temp-file (plist-get spec :result)
    (insert (json-serialize (append (or (car out-cell) (list :record []))
                                    (when failed (list :error failed))
                                    (list :messages (surehand-messages)))
                            :null-object :null :false-object :json-false)))
  (kill-emacs (if failed 1 0)))
