;;; eglot_scenario.el --- surehand's review in Emacs with eglot, step by step  -*- lexical-binding: t -*-
;;
;;   emacs --batch -q -l tests/emacs/eglot_scenario.el SPEC.json
;;
;; The configuration of docs/editors/emacs-eglot.md (the server command and
;; settings are the spec's), `file' visited with eglot managing it, then each
;; step of `steps' in turn, as the user would take it:
;;
;;   {do: "ask", file, task}           `eglot-execute-command' surehand.ask
;;                                      (the documented way: eglot 1.9 has no
;;                                      interactive command for it); timed
;;   {do: "open", file}                visit a file (eglot manages it)
;;   {do: "close", file}               kill its buffer (unmodified: no question)
;;   {do: "type", file, line, text}    insert TEXT at the start of LINE (0-based)
;;   {do: "action", file, line, title} `M-x eglot-code-actions' on LINE: the
;;                                      menu eglot shows (its completing-read),
;;                                      the item whose title starts with TITLE
;;                                      picked; executed as eglot executes it
;;
;; eglot asks "Server wants to edit ... Proceed?" before an edit of a file
;; that is not open: the user answers yes, and the question is recorded.
;;
;; After a step it waits until `until' holds (every key optional):
;;   lines: {FILE: [LINE...]}  the lines of surehand's diagnostics the server last
;;                             published for FILE (eglot drops those of a file
;;                             that is not open, so they are read as they come)
;;   message: TEXT             a message containing TEXT in *Messages*
;;   exists: [FILE...], absent: [FILE...]  files on disk
;; then records what the user has: each project buffer's text and modified
;; flag, each project file on disk, what flymake shows in each buffer, the
;; code actions offered, the answer, the questions asked and the messages
;; shown since the last step (eglot writes the server's window/showMessage to
;; the echo area and *Messages* as `[eglot] Server reports (type=N): ...').
;; eglot sends didChange from an idle timer (and before a deferred request such
;; as textDocument/codeAction): batch Emacs is never idle, so the waits run the
;; idle timers as they would run while the user pauses.  Every wait is bounded;
;; an error is recorded (with what was seen so far) in `result'.
;;
;; SPEC.json: {cmd: [...], settings: {...}, root, file, steps: [...], result}

(require 'eglot)
(require 'json)
(require 'cl-lib)
(require 'flymake)

(defvar surehand-root nil)
(defvar surehand-seen-messages 1 "Where in *Messages* the next step's messages start.")
(defvar surehand-published (make-hash-table :test #'equal)
  "FILE (relative) -> surehand's diagnostics the server last published: ((LINE . MESSAGE)...).")
(defvar surehand-questions nil "What eglot asked the user since the last step.")

;;; The configuration of docs/editors/emacs-eglot.md.

(defun surehand-configure (cmd settings)
  (setq eglot-confirm-server-initiated-edits nil) ; accepting is the user's yes
  (setq-default eglot-workspace-configuration (list :surehand settings))
  (add-to-list 'eglot-server-programs
               `(python-mode . (,@cmd :initializationOptions ,settings))))

;;; What the server sends and eglot asks, as it comes.

(defun surehand-path (relative)
  (expand-file-name relative surehand-root))

(defun surehand-relative (file)
  (file-relative-name file surehand-root))

(cl-defmethod eglot-handle-notification :before
  (_server (_method (eql textDocument/publishDiagnostics)) &key uri diagnostics
           &allow-other-keys)
  (puthash (surehand-relative (eglot--uri-to-path uri))
           (sort (cl-loop for d across diagnostics
                          when (equal (plist-get d :source) "surehand")
                          collect (cons (plist-get (plist-get (plist-get d :range) :start) :line)
                                        (plist-get d :message)))
                 (lambda (a b) (< (car a) (car b))))
           surehand-published))

(define-advice y-or-n-p (:override (prompt) surehand)
  "The user reads PROMPT and answers yes."
  (push prompt surehand-questions)
  t)

;;; The run.

(defun surehand-object (alist)
  "ALIST as a JSON object (an empty one when nil)."
  (or alist (make-hash-table)))

(defun surehand-wait (what check &optional seconds)
  "Let the server and timers run until CHECK gives non-nil; error after SECONDS.
Batch Emacs is never idle, so the idle timers (eglot sends its didChange from
one) run here as they would while the user pauses."
  (let ((deadline (+ (float-time) (or seconds 30))))
    (while (not (funcall check))
      (when (> (float-time) deadline)
        (error "Timed out waiting for %s" what))
      (accept-process-output nil 0.05)
      (dolist (timer (copy-sequence timer-idle-list))
        (timer-event-handler timer)))))

(defun surehand-published-lines (relative)
  (mapcar #'car (gethash relative surehand-published)))

(defun surehand-all-published ()
  "FILE -> [[LINE, MESSAGE]...] of every file with surehand diagnostics."
  (let ((out nil))
    (maphash (lambda (file diagnostics)
               (when diagnostics
                 (push (cons (intern file)
                             (vconcat (mapcar (lambda (d) (vector (car d) (cdr d))) diagnostics)))
                       out)))
             surehand-published)
    (surehand-object out)))

(defun surehand-project-buffers ()
  (cl-remove-if-not (lambda (buffer)
                      (let ((file (buffer-file-name buffer)))
                        (and file (string-prefix-p surehand-root file))))
                    (buffer-list)))

(defun surehand-flymake ()
  "What flymake shows (echo area, `flymake-show-buffer-diagnostics') in each buffer:
\"LINE: TYPE: TEXT\"."
  (let ((out nil))
    (dolist (buffer (surehand-project-buffers))
      (with-current-buffer buffer
        (when (bound-and-true-p flymake-mode)
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
  "Whether surehand's published diagnostics lines are WANTED, a plist (FILE LINES ...)."
  (cl-loop for (file lines) on wanted by #'cddr
           always (equal (surehand-published-lines (substring (symbol-name file) 1)) lines)))

(defun surehand-messages ()
  (with-current-buffer (messages-buffer)
    (buffer-substring-no-properties (point-min) (point-max))))

(defun surehand-new-messages ()
  "The lines eglot wrote to *Messages* since the last step (`[eglot] ...')."
  (with-current-buffer (messages-buffer)
    (let ((new (buffer-substring-no-properties (min surehand-seen-messages (point-max))
                                               (point-max))))
      (setq surehand-seen-messages (point-max))
      (vconcat (cl-remove-if-not (lambda (line) (string-prefix-p "[eglot]" line))
                                 (split-string new "\n"))))))

(defun surehand-holds (until)
  (and (surehand-lines-hold (plist-get until :lines))
       (or (null (plist-get until :message))
           (string-match-p (regexp-quote (plist-get until :message)) (surehand-messages)))
       (cl-every (lambda (file) (file-exists-p (surehand-path file))) (plist-get until :exists))
       (cl-notany (lambda (file) (file-exists-p (surehand-path file))) (plist-get until :absent))))

(defun surehand-buffers ()
  (let ((out nil))
    (dolist (buffer (surehand-project-buffers))
      (with-current-buffer buffer
        (push (cons (intern (surehand-relative buffer-file-name))
                    (list :text (buffer-substring-no-properties (point-min) (point-max))
                          :modified (if (buffer-modified-p) t :json-false)
                          :managed (if eglot--managed-mode t :json-false)))
              out)))
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
  (unless (eglot-current-server)
    (apply #'eglot (eglot--guess-contact)))
  (surehand-wait (format "eglot to manage %s" relative)
                 (lambda () (and (eglot-current-server) eglot--managed-mode))))

(defun surehand-code-action (title)
  "`M-x eglot-code-actions' at point, the menu item starting with TITLE picked.
The titles offered."
  (let* ((offered nil)
         (last-nonmenu-event ?\r)       ; a key, not a mouse click: the menu is a prompt
         (pick (lambda (_prompt items &rest _)
                 (setq offered (mapcar #'car items))
                 (or (cl-find-if (lambda (offer) (string-prefix-p title offer)) offered)
                     (error "No code action %s here: %S" title offered)))))
    (cl-letf (((symbol-function 'completing-read) pick))
      (eglot-code-actions (point) nil nil t))
    offered))

(defun surehand-step (step)
  "Take STEP; what it answered (a plist) or nil."
  (let ((what (plist-get step :do)))
    (cond
     ((equal what "ask")
      (surehand-visit (plist-get step :file))
      (let* ((started (float-time))
             (answer (eglot-execute-command
                      (eglot-current-server) 'surehand.ask
                      (vector (list :task (plist-get step :task)
                                    :uri (eglot--path-to-uri buffer-file-name))))))
        (list :outcome (plist-get answer :outcome)
              :seconds (- (float-time) started))))
     ((equal what "open")
      (surehand-visit (plist-get step :file))
      nil)
     ((equal what "close")
      (kill-buffer (find-buffer-visiting (surehand-path (plist-get step :file))))
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
      (let* ((started (float-time))
             (offered (surehand-code-action (plist-get step :title))))
        (list :offered (vconcat offered) :seconds (- (float-time) started))))
     (t (error "Unknown step %S" step)))))

(defun surehand-run (spec out-cell)
  (let ((steps (plist-get spec :steps))
        (record nil))
    (setq surehand-root (file-name-as-directory (file-truename (plist-get spec :root))))
    (surehand-configure (plist-get spec :cmd) (plist-get spec :settings))
    (surehand-visit (plist-get spec :file))
    (dolist (step steps)
      (setq surehand-questions nil)
      (let* ((answer (condition-case err
                         (surehand-step step)
                       (error (list :error (error-message-string err)))))
             (until (plist-get step :until)))
        (unless (plist-get answer :error)
          (condition-case err
              (surehand-wait (format "%S after %S" until step)
                             (lambda () (surehand-holds until)) (or (plist-get step :seconds) 30))
            (error (setq answer (plist-put answer :error (error-message-string err))))))
        (push (list :step (plist-get step :do)
                    :answer (surehand-object answer)
                    :published (surehand-all-published)
                    :flymake (surehand-flymake)
                    :buffers (surehand-buffers)
                    :disk (surehand-disk)
                    :asked (vconcat (reverse surehand-questions))
                    :shown (surehand-new-messages))
              record)
        (setcar out-cell (list :record (vconcat (reverse record))))
        (when (plist-get answer :error)
          (error "Step %S: %s" step (plist-get answer :error)))))
    (ignore-errors (eglot-shutdown (eglot-current-server)))))

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
